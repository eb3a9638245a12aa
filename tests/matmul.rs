//! Matrix multiply on a real adapter against the f64 CPU reference. Every f32 variant runs one
//! suite of cases, generated as one test per variant and case (cubek's way), so that
//! `cargo test tiled_ragged` runs one and a failure names its case:
//!
//! - `small`: 64³, a multiple of every tile;
//! - `ragged`: 1×101×255 and 33×36×44, 17×33×5, 63×64×65 (no tile divides them; K and N
//!   multiples of 4 take the vec4 paths, the others the scalar ones);
//! - `bounds`: 60³ and 1×1×1, 37×1×29, 1×300×1 (rows and columns past the matrix);
//! - `deep_k`: 1×4099×9, 8×5000×12, 64×3001×64 (split-K, a ragged K split inside a row);
//! - `every_tile`: every candidate the planner can pick under WebGPU's baseline and the
//!   adapter's limits, at ragged shapes both skinny (the pipelined kernel loads A and B where
//!   they lie) and not (it copies them into rows of 4 first);
//! - `plan_is_launch`: what the plan says (split of K, each split's depth, the grid) is what the
//!   launch ran, at ragged shapes.
//!
//! Outputs are poisoned before each run (the test GPU poisons every output). The planner's own
//! decisions, launched nothing, are in `matmul_plan.rs`.

mod common;
use common::{block, gpu, random_f32};
use proptest::prelude::*;
use tilekit::kernels::matmul::{
    reference, verify, MatmulRun, Precision, Selection, Shape, Variant,
};
use tilekit::plan::Tile;
use tilekit::{Limits, Planner};

/// The pipelined kernel in the 64×64×8 block.
fn pipelined_64() -> Selection {
    Selection::Forced {
        variant: Variant::PIPELINED,
        tile: Tile::block(64, 64, 8),
    }
}

fn check(m: usize, k: usize, n: usize, selection: &Selection, seed: u64) -> MatmulRun {
    let g = gpu();
    let a = random_f32(m * k, seed);
    let b = random_f32(k * n, seed + 1);
    let (c, run) = g.matmul(&a, &b, (m, k, n), selection).wait().unwrap();
    let (exact, mag) = reference(&a, &b, m, k, n);
    verify(&c, &exact, &mag, k)
        .unwrap_or_else(|e| panic!("{m}x{k}x{n} {selection:?} {}: {e}", run.tile));
    run
}

/// The variant, or a test that cannot run it here fails (it never passes in silence).
fn variant(name: &str) -> Variant {
    let v = Variant::parse(name).unwrap();
    gpu()
        .require(v.needs(), name)
        .unwrap_or_else(|e| panic!("{e}"));
    v
}

fn shapes(v: Variant, list: &[(usize, usize, usize)], seed: u64) {
    for (i, &(m, k, n)) in list.iter().enumerate() {
        check(m, k, n, &Selection::Variant(v), seed + i as u64);
    }
}

fn every_tile(v: Variant) {
    let g = gpu();
    let mut tried = 0;
    for (m, k, n) in [
        (67, 45, 71),
        (68, 44, 72),
        (3, 301, 37),
        (2, 1284, 17),
        (260, 45, 263),
    ] {
        let shape = Shape::new(m, k, n).unwrap();
        for limits in [Limits::webgpu_default(), g.limits().clone()] {
            let planner = Planner::new(limits, g.profile.clone());
            let Some(tiling) = v.tiling(shape, &g.caps()).unwrap() else {
                check(m, k, n, &Selection::Variant(v), 7);
                tried += 1;
                continue;
            };
            let plan = planner.plan(tiling.as_ref()).unwrap();
            for c in plan.candidates.iter().filter(|c| c.refused.is_none()) {
                let forced = Selection::Forced {
                    variant: v,
                    tile: c.tile(),
                };
                check(m, k, n, &forced, 7);
                tried += 1;
            }
        }
    }
    assert!(tried >= 3, "{v}: only {tried} tiles tried");
}

/// The plan's split of K, its depth and its grid are what ran: the launch takes them from the
/// plan, and each split is a whole number of granules that together cover K.
fn plan_is_launch(v: Variant) {
    let g = gpu();
    for (i, &(m, k, n)) in [(3, 1284, 17), (1, 4099, 9), (65, 513, 63), (130, 2000, 7)]
        .iter()
        .enumerate()
    {
        let shape = Shape::new(m, k, n).unwrap();
        let (da, db) = (
            g.upload("A", &random_f32(m * k, 40 + i as u64))
                .wait()
                .unwrap(),
            g.upload("B", &random_f32(k * n, 50 + i as u64))
                .wait()
                .unwrap(),
        );
        let dc = g.alloc::<f32>("C", m * n).wait().unwrap();
        let run = g
            .matmul_on_device(&da, &db, &dc, shape, &Selection::Variant(v))
            .wait()
            .unwrap();
        let Some(plan) = &run.plan else {
            assert_eq!(run.splits, 1, "{v} has no plan but split K");
            continue;
        };
        let c = plan.choice();
        assert_eq!(run.dispatch, plan.dispatch, "{v} {shape}: the grid");
        assert_eq!(run.splits, c.splits, "{v} {shape}: the split of K");
        if c.k_split > 0 {
            assert_eq!(run.k_split, c.k_split, "{v} {shape}: each split's depth");
            let k4 = (k as u32).div_ceil(4) * 4;
            assert!(
                c.k_split * c.splits >= k4 && c.k_split * (c.splits - 1) < k4,
                "{v} {shape}: {} splits of {} do not cover K = {k4} exactly once",
                c.splits,
                c.k_split
            );
        }
        assert!(
            plan.dispatch.x as u64 * plan.dispatch.y as u64 >= c.workgroups,
            "{v} {shape}: the grid holds the plan's workgroups"
        );
    }
}

/// A skinny ragged product reaches the pipelined kernel as it is: its scalar loads read A and B
/// where they lie, so no padded copy is made (the tile would say so), and the product is right
/// with K ragged, N ragged or both, in one split of K and in several (a split then ends inside a
/// row of A). A ragged product that is not skinny has the operand that K or N misaligns copied
/// into rows of 4 first (A for K, B for N; the other stays where it lies), and the tile says
/// which. The small-M kernel reads every shape in place, as the rule does for every A of up to
/// 16 rows.
#[test]
fn a_skinny_ragged_product_is_loaded_where_it_lies() {
    use tilekit::kernels::matmul::loads_in_place;
    let v = variant("pipelined");
    let mut split = false;
    for (i, &(m, k, n)) in [
        (70, 301, 132),
        (70, 300, 131),
        (70, 301, 131),
        (9, 4099, 66),
    ]
    .iter()
    .enumerate()
    {
        assert!(loads_in_place(Shape::new(m, k, n).unwrap()));
        let run = check(m, k, n, &Selection::Variant(v), 60 + i as u64);
        assert!(!run.tile.contains("padded"), "{m}x{k}x{n}: {}", run.tile);
        split |= run.splits > 1 && k % 4 != 0;
    }
    assert!(split, "no ragged K was split");
    let mut split_copied = false;
    // Read by more than IN_PLACE_REUSE blocks of 64×64 (A by ⌈N/64⌉, B by ⌈M/64⌉): copied.
    for (i, &(m, k, n, copied)) in [
        (300, 301, 450, "padded A"),
        (450, 64, 263, "padded B"),
        (450, 301, 451, "padded A and B"),
    ]
    .iter()
    .enumerate()
    {
        assert!(!loads_in_place(Shape::new(m, k, n).unwrap()));
        let run = check(m, k, n, &pipelined_64(), 65 + i as u64);
        assert!(run.tile.ends_with(copied), "{m}x{k}x{n}: {}", run.tile);
        split_copied |= run.splits > 1 && k % 4 != 0;
    }
    assert!(split_copied, "no copied ragged K was split");
    let gemv = variant("gemv");
    let mut split = false;
    for (i, &(m, k, n)) in [(1, 301, 131), (5, 300, 131), (16, 301, 132), (3, 4099, 9)]
        .iter()
        .enumerate()
    {
        let run = check(m, k, n, &Selection::Variant(gemv), 70 + i as u64);
        assert!(!run.tile.contains("padded"), "{m}x{k}x{n}: {}", run.tile);
        split |= run.splits > 1 && k % 4 != 0;
    }
    assert!(split, "gemv: no ragged K was split");
    // Forced on a product the rule would copy, it still reads in place: its wide loads of B
    // take rows of 4 up to K, which A copied alone would carry past B's last row.
    for (i, &(m, k, n)) in [(260, 45, 263), (260, 45, 264)].iter().enumerate() {
        assert!(!loads_in_place(Shape::new(m, k, n).unwrap()));
        let run = check(m, k, n, &Selection::Variant(gemv), 75 + i as u64);
        assert!(
            !run.tile.contains("padded"),
            "gemv {m}x{k}x{n}: {}",
            run.tile
        );
    }
}

/// The sum of the split-K partials fills every element of C (poisoned first) in each of its
/// entry points: `sum_splits4` where N is a multiple of 4 (a vec4 of the partials is one of C),
/// `sum_splits` where N is ragged (the partials' rows are longer, C's stored element by
/// element), also over one split, whose padded rows it copies into C (the small-M kernel). The
/// pipelined kernel stores a C of ragged N in one split straight, in order through workgroup
/// memory (`matmul_pipelined_c_ragged.wgsl`), from A and B read in place or copied.
#[test]
fn the_sum_of_the_splits_fills_c_exactly() {
    let (mut aligned, mut ragged, mut one, mut straight) = (false, false, false, [false; 2]);
    for name in ["pipelined", "gemv"] {
        let v = variant(name);
        for (i, &(m, k, n)) in [
            (7, 3001, 9),
            (8, 3000, 12),
            (6, 700, 10),
            (9, 700, 16),
            (70, 40, 131),
        ]
        .iter()
        .enumerate()
        {
            let run = check(m, k, n, &Selection::Variant(v), 80 + i as u64);
            aligned |= run.splits > 1 && n % 4 == 0;
            ragged |= run.splits > 1 && n % 4 != 0;
            one |= name == "gemv" && run.splits == 1 && n % 4 != 0;
        }
    }
    let v = variant("pipelined");
    for (i, &(m, k, n)) in [(70, 40, 131), (1800, 40, 263), (33, 20, 5), (129, 36, 130)]
        .iter()
        .enumerate()
    {
        let run = check(m, k, n, &Selection::Variant(v), 90 + i as u64);
        if run.splits == 1 {
            straight[run.tile.contains("padded") as usize] = true;
        }
    }
    assert!(
        aligned && ragged && one && straight == [true; 2],
        "split, N a multiple of 4: {aligned}; split, N ragged: {ragged}; one split, N ragged \
         (small-M): {one}; stored straight, in place and copied: {straight:?}"
    );
}

/// The matrix-vector product (M = 1, N a multiple of 4) adds its splits of K in the same launch
/// (`gemv_summed`): each block's last workgroup to finish sums every split's partial into C and
/// sets the block's count back to zero, for the next launch that shares the counts (one set per
/// `Gpu`). Calls one after another on one `Gpu`, with other data, other shapes and so other
/// blocks and splits in between (and a product of more rows, which keeps the second launch), C
/// poisoned before each: every C right. Without the reset the next call's counts start at the
/// last one's split and never reach its own, and its C stays poisoned (checked: the second call
/// then fails, its C NaN).
#[test]
fn splits_summed_in_the_launch_leave_their_counts_for_the_next() {
    let gemv = variant("gemv");
    for (i, &(m, k, n)) in [
        (1, 3000, 12),
        (1, 3000, 12),
        (1, 2051, 16),
        (9, 2051, 16),
        (1, 3000, 12),
        (1, 5003, 132),
        (1, 2051, 16),
    ]
    .iter()
    .enumerate()
    {
        let run = check(m, k, n, &Selection::Variant(gemv), 120 + i as u64);
        assert!(run.splits > 1, "{m}x{k}x{n} splits K: {}", run.tile);
    }
}

/// Beyond skinny products, each ragged operand is read in place where at most IN_PLACE_REUSE
/// blocks read it (A by the ⌈N/BN⌉ blocks of a row of blocks, B by the ⌈M/BM⌉ of a column) and
/// copied where more do: each mix of the two, in 64×64 blocks, A and B from the main step's
/// modules of every kind (its loads of A and of B wide or in scalars, C stored straight where N
/// is ragged), every element checked against f64.
#[test]
fn each_ragged_operand_is_copied_only_where_many_blocks_read_it() {
    use tilekit::kernels::matmul::IN_PLACE_REUSE;
    assert_eq!(IN_PLACE_REUSE, 6, "the shapes below assume 6");
    let tile = pipelined_64();
    for (i, &(m, k, n, copied)) in [
        (900, 301, 300, None),              // A read by 5 blocks
        (900, 301, 301, Some("padded B")),  // A by 5, B by 15
        (380, 301, 1003, Some("padded A")), // A by 16, B by 6
        (900, 301, 1003, Some("padded A and B")),
        (380, 64, 1003, None),             // B by 6
        (450, 64, 1003, Some("padded B")), // B by 8
    ]
    .iter()
    .enumerate()
    {
        let run = check(m, k, n, &tile, 140 + i as u64);
        match copied {
            Some(c) => assert!(run.tile.ends_with(c), "{m}x{k}x{n}: {}", run.tile),
            None => assert!(!run.tile.contains("padded"), "{m}x{k}x{n}: {}", run.tile),
        }
    }
}

/// A C of ragged N written by one slice of K (`matmul_pipelined_c_ragged.wgsl`): from 2^19
/// elements staged through workgroup memory and stored in order, in the buffer of B's slices
/// where BM <= 16·BK, else in A's (256×128×8), with blocks cut by M and by N, operands copied or
/// read in place; a smaller C, or one of under 4 columns, straight. C is poisoned first, every
/// element checked against f64.
#[test]
fn a_ragged_c_in_one_slice_is_staged_and_stored_whole_by_every_block() {
    let v = variant("pipelined");
    let mut seed = 160;
    for tile in [
        "64x64x8",
        "128x128x8",
        "256x128x8",
        "128x256x8",
        "32x128x8",
        "128x64x16",
        "64x128x16",
    ] {
        for &(m, k, n) in &[
            (1157, 20, 483),
            (1100, 41, 499),
            (300, 40, 299),
            (70, 40, 3),
        ] {
            let sel = Selection::Forced {
                variant: v,
                tile: block(tile),
            };
            seed += 1;
            let run = check(m, k, n, &sel, seed);
            assert_eq!(run.splits, 1, "{m}x{k}x{n}: {}", run.tile);
        }
    }
}

/// The rule: in place where K or N is ragged and M·N/(M+N) is at most 128 (the H100's crossover
/// lies between 61 and 342, BENCHMARKS.md, "Ragged operands"); never where neither is ragged.
#[test]
fn ragged_loads_in_place_only_where_the_copies_cost_more() {
    use tilekit::kernels::matmul::loads_in_place;
    let at = |m, k, n| loads_in_place(Shape::new(m, k, n).unwrap());
    assert!(at(17, 4099, 4097) && at(8191, 4095, 61) && at(65, 4099, 1001));
    assert!(at(130, 4095, 8192) && !at(131, 4095, 8192));
    assert!(!at(777, 1234, 2345) && !at(1023, 2049, 515) && !at(4095, 4095, 4095));
    assert!(!at(17, 4096, 4096) && !at(8192, 4096, 64));
}

/// What lies past the end of a row of A is the next row: a ragged load must not read it into
/// this one. With an infinity at the start of row 1, rows 0 and 2 of C stay finite and right
/// (the slice at the end of row 0 would otherwise multiply it by a zero of B: NaN).
#[test]
fn a_ragged_row_of_a_never_reads_into_the_next() {
    // N ragged too (every operand in scalars), and N a multiple of 4 (B's loads stay wide).
    for (m, k, n) in [(3, 301, 5), (3, 301, 8)] {
        row_of_a_stays_in_its_row(m, k, n);
    }
}

fn row_of_a_stays_in_its_row(m: usize, k: usize, n: usize) {
    let mut a = random_f32(m * k, 80);
    a[k] = f32::INFINITY;
    let b = random_f32(k * n, 81);
    let (exact, mag) = reference(&a, &b, m, k, n);
    for name in ["pipelined", "gemv"] {
        let (c, run) = gpu()
            .matmul(&a, &b, (m, k, n), &Selection::Variant(variant(name)))
            .wait()
            .unwrap();
        for r in [0, 2] {
            let row = r * n..(r + 1) * n;
            verify(&c[row.clone()], &exact[row.clone()], &mag[row], k)
                .unwrap_or_else(|e| panic!("{name} {m}x{k}x{n} row {r} ({}): {e}", run.tile));
        }
        assert!(
            c[n..2 * n].iter().all(|x| !x.is_finite()),
            "{name}: {:?}",
            &c[n..2 * n]
        );
    }
}

/// One test per variant and case.
macro_rules! suite {
    ($($variant:ident => $name:literal),+ $(,)?) => {$(
        mod $variant {
            use super::*;
            #[test]
            fn small() {
                shapes(variant($name), &[(64, 64, 64)], 1);
            }
            #[test]
            fn ragged() {
                shapes(
                    variant($name),
                    &[(1, 101, 255), (33, 36, 44), (17, 33, 5), (63, 64, 65)],
                    10,
                );
            }
            #[test]
            fn bounds() {
                shapes(
                    variant($name),
                    &[(60, 60, 60), (1, 1, 1), (37, 1, 29), (1, 300, 1), (5, 70, 200)],
                    20,
                );
            }
            #[test]
            fn deep_k() {
                shapes(
                    variant($name),
                    &[(1, 4099, 9), (8, 5000, 12), (64, 3001, 64), (2, 513, 1)],
                    30,
                );
            }
            #[test]
            fn every_tile() {
                super::every_tile(variant($name));
            }
            #[test]
            fn plan_is_launch() {
                super::plan_is_launch(variant($name));
            }
        }
    )+};
}

suite! {
    naive => "naive",
    tiled => "tiled",
    blocked => "blocked",
    pipelined => "pipelined",
    gemv => "gemv",
}

/// Stream-K: where the output blocks leave the last wave partly filled, each of that wave's
/// blocks is split into a head and a tail of K, each its own workgroup writing a partial block,
/// and a second pass adds them into C. Every element of C comes out right, the full waves' blocks
/// and the split ones, at ragged M and at N and K that no block divides (stream-K takes K and N
/// multiples of 4 only). Here on GPUs of 4 to 11 multiprocessors that hold one workgroup each
/// (the CPU profile's residency, set on any adapter), so that the shapes stay small: 24 blocks of
/// 88 slices on 5 are 4 full waves, then 4 heads and their tails one after another on the fifth
/// multiprocessor; on 7 and 11, blocks split near their middle; on 9, 6 heads and tails two to a
/// multiprocessor.
#[test]
fn stream_k_shares_the_last_wave_and_c_comes_out_whole() {
    let v = variant("pipelined");
    let mut g = tilekit::Gpu::with_options(tilekit::GpuOptions {
        poison_outputs: true,
        ..Default::default()
    })
    .wait()
    .unwrap();
    g.profile = tilekit::DeviceProfile::named("cpu").unwrap();
    for (i, (mps, m, k, n)) in [
        (5, 200, 700, 332),
        (7, 200, 700, 332),
        (9, 200, 700, 332),
        (11, 200, 700, 332),
        (5, 190, 704, 380),
        (4, 150, 708, 380),
        (5, 131, 708, 188),
    ]
    .into_iter()
    .enumerate()
    {
        g.profile.multiprocessors = Some(mps);
        let a = random_f32(m * k, 41 + i as u64);
        let b = random_f32(k * n, 51 + i as u64);
        let forced = Selection::Forced {
            variant: v,
            tile: Tile::block(64, 64, 8),
        };
        let (c, run) = g.matmul(&a, &b, (m, k, n), &forced).wait().unwrap();
        assert!(run.tile.contains("stream-K"), "{m}x{k}x{n}: {}", run.tile);
        let (exact, mag) = reference(&a, &b, m, k, n);
        verify(&c, &exact, &mag, k).unwrap_or_else(|e| panic!("{m}x{k}x{n} {}: {e}", run.tile));
    }
}

/// Stream-K in even shares: every block's slices laid end to end and cut into as many even
/// shares as the GPU holds workgroups, each share walking its blocks one after another, the
/// pieces of a block held by several shares summed into C by a second pass. Every element of C
/// comes out right, at ragged M, K and N (A copied into rows of 4, C stored in scalars), with
/// shares that hold several whole blocks and shares inside one block. Here on GPUs of 3 to 7
/// multiprocessors of the hopper profile (set on any adapter), where the wave model takes the
/// shares over the blocks forced: 24 blocks of 64×64 in 44 units of K among 18 shares on 3, 9
/// blocks of 128×128 among 8 on 4.
#[test]
fn even_shares_walk_every_block_and_c_comes_out_whole() {
    let v = variant("pipelined");
    let mut g = tilekit::Gpu::with_options(tilekit::GpuOptions {
        poison_outputs: true,
        ..Default::default()
    })
    .wait()
    .unwrap();
    g.profile = tilekit::DeviceProfile::named("hopper").unwrap();
    for (i, (mps, m, k, n, tile)) in [
        (3, 200, 700, 332, "64x64x8"),
        (4, 257, 333, 259, "128x128x8"),
        (5, 129, 1500, 257, "128x128x8"),
        (4, 301, 517, 129, "64x128x16"),
        (7, 199, 999, 201, "64x128x16"),
        (5, 250, 450, 250, "64x64x8"),
        (4, 150, 2001, 150, "64x64x8"),
    ]
    .into_iter()
    .enumerate()
    {
        g.profile.multiprocessors = Some(mps);
        let a = random_f32(m * k, 61 + i as u64);
        let b = random_f32(k * n, 71 + i as u64);
        let forced = Selection::Forced {
            variant: v,
            tile: block(tile),
        };
        let (c, run) = g.matmul(&a, &b, (m, k, n), &forced).wait().unwrap();
        assert!(
            run.tile.contains("even shares"),
            "{m}x{k}x{n}: {}",
            run.tile
        );
        let (exact, mag) = reference(&a, &b, m, k, n);
        verify(&c, &exact, &mag, k).unwrap_or_else(|e| panic!("{m}x{k}x{n} {}: {e}", run.tile));
    }
}

#[test]
fn the_suite_covers_every_f32_variant() {
    let covered = ["naive", "tiled", "blocked", "pipelined", "gemv"];
    for v in Variant::all().filter(|v| v.precision() == Precision::F32) {
        assert!(
            covered.contains(&v.name()),
            "the f32 variant {v} has no suite: add it to suite! {{}}"
        );
    }
}

#[test]
fn a_c_of_several_chunks_is_read_back_whole() {
    // C of 1100×2003 f32 (8.8 MB, over one transfer chunk) comes back through the staging ring;
    // poisoned first, as every output of the test GPU.
    assert!(1100 * 2003 * 4 > tilekit::transfer::CHUNK as usize);
    check(1100, 5, 2003, &Selection::Auto, 71);
}

#[test]
fn square_512_with_the_default_variant() {
    let g = gpu();
    let (m, k, n) = (512, 512, 512);
    let a = random_f32(m * k, 99);
    let b = random_f32(k * n, 98);
    let (c, _) = g
        .matmul(
            &a,
            &b,
            (m, k, n),
            &tilekit::kernels::matmul::Selection::Auto,
        )
        .wait()
        .unwrap();
    let (exact, mag) = reference(&a, &b, m, k, n);
    verify(&c, &exact, &mag, k).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_shapes_match_the_reference(m in 1usize..200, k in 1usize..200, n in 1usize..200, v in 0usize..16, seed in 0u64..1000) {
        let vs: Vec<Variant> = Variant::all()
            .filter(|v| v.precision() == Precision::F32 && gpu().features().contains(v.needs()))
            .collect();
        check(m, k, n, &Selection::Variant(vs[v % vs.len()]), seed);
    }
}
