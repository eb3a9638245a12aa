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
//! Outputs are poisoned before each run (the test GPU poisons every output).

mod common;
use common::{gpu, random_f32};
use proptest::prelude::*;
use tilekit::kernels::matmul::{
    reference, selection_named, verify, MatmulRun, Precision, Selection, Shape, Variant,
};
use tilekit::plan::Tile;
use tilekit::{Error, Limits, Planner};

/// The pipelined kernel's block labelled `BMxBNxBK`, as a typed tile.
fn block(label: &str) -> Tile {
    let d: Vec<u32> = label.split('x').map(|x| x.parse().unwrap()).collect();
    Tile::block(d[0], d[1], d[2])
}

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

#[test]
fn the_counts_follow_the_lesson() {
    let g = gpu();
    let (m, k, n) = (64, 64, 64);
    let a = random_f32(m * k, 1);
    let b = random_f32(k * n, 2);
    let (_, naive) = g
        .matmul(&a, &b, (m, k, n), &Selection::Variant(Variant::NAIVE))
        .wait()
        .unwrap();
    assert_eq!(
        naive.ratio, 1.0,
        "PMPP fig 4.3: one multiply-add per two loads"
    );
    let tile16 = Selection::Forced {
        variant: Variant::TILED,
        tile: Tile::square(16),
    };
    let (_, tiled) = g.matmul(&a, &b, (m, k, n), &tile16).wait().unwrap();
    assert_eq!(
        tiled.ratio, 16.0,
        "tiling cuts global loads by the tile width"
    );
    assert_eq!(naive.global_loads, 16 * tiled.global_loads);
}

#[test]
fn a_tile_without_a_variant_finds_the_variant_that_has_it() {
    let g = gpu();
    let (m, k, n) = (20, 30, 40);
    let a = random_f32(m * k, 3);
    let b = random_f32(k * n, 4);
    let shape = Shape::new(m, k, n).unwrap();
    let sel = selection_named(g, shape, Precision::F32, None, Some("TILE=8")).unwrap();
    let (_, run) = g.matmul(&a, &b, (m, k, n), &sel).wait().unwrap();
    assert_eq!(run.variant, Variant::TILED);
    assert_eq!(run.tile, "TILE=8");
    // A label no variant has: the error lists each variant's tiles, by name.
    let e = selection_named(g, shape, Precision::F32, None, Some("TILE=7")).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("tiled: ") && text.contains("TILE=8"),
        "{text}"
    );
    // A tile another variant has, named for one that lacks it: the error names the variant.
    let e = selection_named(
        g,
        shape,
        Precision::F32,
        Some(Variant::BLOCKED),
        Some("TILE=8"),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownTile { kernel, .. } if kernel.contains("blocked")),
        "{e}"
    );
    // A typed tile no candidate of the variant is: the same error.
    let e = g
        .matmul(
            &a,
            &b,
            (m, k, n),
            &Selection::Forced {
                variant: Variant::BLOCKED,
                tile: Tile::square(8),
            },
        )
        .wait()
        .unwrap_err();
    assert!(
        matches!(&e, Error::UnknownTile { kernel, .. } if kernel.contains("blocked")),
        "{e}"
    );
    // A tile the adapter cannot hold.
    let too_big = Selection::Forced {
        variant: Variant::TILED,
        tile: Tile::square(64),
    };
    assert!(g.matmul(&a, &a, (2, 3, 2), &too_big).wait().is_err());
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

/// The pipelined kernel's plan on the H100's profile and limits with `tile` forced.
fn hopper_pipelined_forced(m: u32, k: u32, n: u32, tile: &str) -> tilekit::Plan {
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    let tiling = PipelinedTiling {
        shape: Shape { m, k, n },
    };
    let planner = common::hopper_planner();
    let tile = planner.tile_named(&tiling, tile).unwrap();
    planner.plan_forced(&tiling, &tile).unwrap()
}

/// The pipelined kernel's register estimate and its workgroup memory decide how many workgroups a
/// multiprocessor holds, and with it the split of K. On the hopper profile each tile gets the
/// residency measured on the H100 (BENCHMARKS.md, "Workgroup memory per multiprocessor"): the
/// registers NVIDIA's driver allocated (scripts/device/stats: 64×64×8 has 167, six workgroups of 64
/// invocations, not seven), and the 48 KiB of workgroup memory its Vulkan driver gives a
/// multiprocessor (64×64×16 stages 16 KiB: three, where its registers would allow four). Sized for
/// seven, 64×8192×8192 ran in 7 splits, a second wave of workgroups: 287 µs against 232 in 6. Pure
/// planning: nothing is launched.
#[test]
fn the_split_of_k_counts_the_workgroups_a_multiprocessor_holds() {
    use tilekit::plan::Resource;
    let plan = hopper_pipelined_forced;
    // (tile, workgroups per multiprocessor on the H100, the resource that binds first)
    for (tile, resident, binds) in [
        ("128x128x8", 2, Resource::Registers),
        ("128x128x16", 1, Resource::Registers),
        ("128x64x16", 2, Resource::Registers),
        ("64x128x16", 2, Resource::Registers),
        ("64x64x16", 3, Resource::WorkgroupMemory),
        ("64x64x8", 6, Resource::Registers),
        // 512 invocations: the driver compiles them to fit one multiprocessor's 64 K registers
        // (128 and 127 registers on the H100).
        ("128x256x16", 1, Resource::Registers),
        ("128x256x8", 1, Resource::Registers),
    ] {
        let c = plan(4096, 4096, 4096, tile);
        let r = c.choice().residency;
        assert_eq!((r.workgroups, r.binding), (resident, binds), "{tile}");
    }
    // 128 blocks of 64×64 in 6 splits: 768 workgroups, one wave of 132 × 6.
    let p = plan(64, 8192, 8192, "64x64x8");
    assert_eq!((p.choice().splits, p.choice().workgroups), (6, 768));
    let p = plan(8192, 8192, 64, "64x64x8");
    assert_eq!(p.choice().splits, 6);
    // 64 blocks: 11 splits (704 workgroups) come within 12% of the best wave count (12 splits).
    assert_eq!(plan(64, 4096, 4096, "64x64x8").choice().splits, 11);
}

/// The plan says where the last wave is split (stream-K), and its grid counts the heads and the
/// tails: on the H100's profile 4096³ in 128×256×16 blocks is 512 blocks on 132 one-workgroup
/// multiprocessors, the last 116 split at slice 232 of 256 (628 workgroups); 4224×4096×4096 fills
/// four waves whole, 2048³ fits one, 4095³ has K and N ragged, and a split of K runs no stream-K.
/// 256×128×8 keeps its last wave whole: its stream-K entry ran 4096³ 10% slower than its whole
/// blocks (BENCHMARKS.md, "The last wave in heads and tails"). Pure planning: nothing is launched.
#[test]
fn the_plan_splits_a_partly_filled_last_wave_into_heads_and_tails() {
    let forced = hopper_pipelined_forced;
    let p = forced(4096, 4096, 4096, "128x256x16");
    let c = p.choice();
    let sk = c
        .stream_k
        .expect("4096³ leaves its last wave partly filled");
    assert_eq!((sk.first, sk.per, c.workgroups), (396, 232, 628));
    assert_eq!(p.dispatch.count, 628);
    assert!(p.why.contains("stream-K"), "{}", p.why);
    for (m, k, n) in [(4224, 4096, 4096), (2048, 2048, 2048), (4095, 4095, 4095)] {
        let p = forced(m, k, n, "128x256x16");
        assert_eq!(p.choice().stream_k, None, "{m}x{k}x{n}");
    }
    let p = forced(3000, 5000, 700, "64x64x8");
    assert!(p.choice().splits > 1 && p.choice().stream_k.is_none());
    let p = forced(4096, 4096, 4096, "256x128x8");
    assert_eq!((p.choice().splits, p.choice().stream_k), (1, None));
    assert_eq!(p.dispatch.count, 512);
}

/// Where the wave model estimates them faster, every block's slices are shared out evenly
/// (stream-K in even shares), one workgroup per slot: on the H100 1500³ in 128×256×16 blocks ran
/// in 165 µs so against 197 in three splits of K (72 blocks, 216 workgroups on 132
/// multiprocessors), 776×1236×2348 in 64×64×8 blocks in 128 against 137. Where they ran slower
/// the plan keeps whole blocks or the split: 4096³, whose blocks make three waves and more (the
/// last wave in heads and tails), and 3000×5001×701 in 64×64×8 blocks, 615 µs in shares against
/// 557 in three splits, where the wave model estimates the split faster (BENCHMARKS.md,
/// "Even shares for mid-size products"). Pure planning: nothing is launched.
#[test]
fn the_plan_shares_k_out_evenly_where_the_blocks_fall_short_of_whole_waves() {
    let forced = hopper_pipelined_forced;
    let p = forced(1500, 1500, 1500, "128x256x16");
    let c = p.choice();
    let sh = c.shares.expect("1500³: 72 blocks on 132 multiprocessors");
    assert_eq!((sh.workgroups, sh.units), (132, 47));
    assert_eq!((c.splits, c.workgroups, c.stream_k), (1, 132, None));
    assert_eq!(p.dispatch.count, 132);
    assert!(p.why.contains("shared out evenly"), "{}", p.why);
    let p = forced(776, 1236, 2348, "64x64x8");
    assert_eq!(p.choice().shares.map(|s| s.workgroups), Some(792));
    let p = forced(4096, 4096, 4096, "128x256x16");
    assert!(p.choice().shares.is_none() && p.choice().stream_k.is_some());
    // 4096 blocks of 64×64 on 132 × 6 slots: 5.2 waves, so not in shares (8% slower there).
    let p = forced(4096, 4096, 4096, "64x64x8");
    assert!(p.choice().shares.is_none(), "{}", p.why);
    // 288 blocks of 128×256, 2.2 waves: in shares (1313 → 1217 µs).
    assert!(forced(3072, 3072, 3072, "128x256x16")
        .choice()
        .shares
        .is_some());
    let p = forced(3000, 5001, 701, "64x64x8");
    assert!(p.choice().shares.is_none() && p.choice().splits == 3);
    // Never the 512-invocation blocks of BK = 8 (the shares entry spilled at 128×256×8).
    for tile in ["256x128x8", "128x256x8"] {
        assert_eq!(
            forced(1500, 1500, 1500, tile).choice().shares,
            None,
            "{tile}"
        );
    }
}

/// The pipelined blocks are ranked by the wave model, not by reuse: on the H100 (BENCHMARKS.md,
/// "Measured rates for the wave model", every block and split timed) 64×64×8 ran 777×1234×2345 in
/// 167 µs and 3000×5000×700 in 518, where 128×128×8, which reuses twice as much and was the
/// planner's choice before, took 191 and 651; at 2048³ one wave of 128×256×8 (392 µs) beats
/// 128×128×8 (419) and 64×64×8 (452). The score is the fraction of the FMA rate the launch keeps
/// busy. Pure planning: nothing is launched.
#[test]
fn the_planner_ranks_pipelined_blocks_by_the_waves_they_run() {
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    let planner = common::hopper_planner();
    let plan = |m, k, n| {
        planner
            .plan(&PipelinedTiling {
                shape: Shape { m, k, n },
            })
            .unwrap()
    };
    for ((m, k, n), tile) in [
        ((777, 1234, 2345), "64x64x8"),
        ((3000, 5000, 700), "64x64x8"),
        ((1000, 1000, 1000), "64x64x8"),
        ((2048, 2048, 2048), "128x256x8"),
        ((64, 8192, 8192), "64x64x8"),
    ] {
        let p = plan(m, k, n);
        assert_eq!(p.choice().label, tile, "{m}×{k}×{n}:\n{}", p.table());
        assert!(p.why.contains("FMA rate"), "{}", p.why);
        for c in &p.candidates {
            assert!(c.score > 0.0 && c.score <= 1.0, "{}: {}", c.label, c.score);
        }
    }
    // 133 blocks of 128×128 on 132 multiprocessors: whole, the last would double one
    // multiprocessor's time (the estimate about half of 64×64×8's, which fills one wave), so the
    // planner shares their slices out evenly instead; 64×64×8, shared too, still ranks first
    // (on the H100: 149 µs against 151, BENCHMARKS.md, "Even shares").
    let p = plan(777, 1234, 2345);
    let candidate = |label: &str| p.candidates.iter().find(|c| c.label == label).unwrap();
    assert!(candidate("128x128x8").shares.is_some());
    assert_eq!(p.choice().label, "64x64x8");
}

/// The wave model sees how a launch's workgroups fill the GPU, not how fast each block's code runs
/// once they do: on the H100 a 128×256 block ran 8192³ 7% faster per FMA than 64×64×8 (`tilekit
/// tune`'s trials, shipped as the hopper profile's measured rates). Scaled by those rates, the
/// estimate picks a 128×256 block where 64×64×8 ran 5–8% behind (1024×4096×512, 256×8192×2048, and
/// 768×3072×768; BENCHMARKS.md, "Measured rates for the wave model"; the model alone gives the last
/// two to 128×256 too: it counts that block's pipeline fill as the one slice it loads ahead, and
/// the partial products of its eight splits at 256×8192×2048 at 10 FLOP a byte) and keeps 64×64×8
/// where it was the fastest (777×1234×2345, 3000×5000×700: one wave of small blocks against a
/// second, nearly empty wave of large ones). Pure planning: nothing is launched.
#[test]
fn measured_rates_scale_the_wave_models_estimate() {
    use tilekit::kernels::matmul::blocked::BlockedTiling;
    use tilekit::kernels::matmul::pipelined::PipelinedTiling;
    use tilekit::kernels::matmul::tune;
    let rates = tune::measured_defaults("hopper").unwrap().rates["pipelined"].clone();
    let plain = common::hopper_planner();
    let rated = common::hopper_planner().with_rates(rates.clone());
    let tiling = |m, k, n| PipelinedTiling {
        shape: Shape { m, k, n },
    };
    for ((m, k, n), without, with) in [
        ((768, 3072, 768), "128x256x8", "128x256x"),
        ((1024, 4096, 512), "64x64x8", "128x256x"),
        ((256, 8192, 2048), "128x256x8", "128x256x"),
        ((777, 1234, 2345), "64x64x8", "64x64x8"),
        ((3000, 5000, 700), "64x64x8", "64x64x8"),
        // C of 128 columns over many rows: the 512-invocation block the other way round, 384 µs
        // where 64×64×8 took 429 and 128×128×8 430 on the H100.
        ((8192, 8192, 128), "64x64x8", "256x128x8"),
    ] {
        let p = plain.plan(&tiling(m, k, n)).unwrap();
        let r = rated.plan(&tiling(m, k, n)).unwrap();
        assert_eq!(p.choice().label, without, "{m}×{k}×{n}:\n{}", p.table());
        // A 128×256 block (BK 8 or 16: within 2% of each other at these shapes), or the one
        // named.
        assert!(
            r.choice().label.starts_with(with),
            "{m}×{k}×{n}:\n{}",
            r.table()
        );
        // Each candidate's score is the model's estimate times its measured rate.
        for (a, b) in p.candidates.iter().zip(&r.candidates) {
            let rate = rates[&a.label];
            assert!(rate > 0.0 && rate <= 1.0, "{}: {rate}", a.label);
            assert_eq!(b.rate, Some(rate), "{}", a.label);
            assert_eq!(a.rate, None);
            assert!((b.score - a.score * rate).abs() < 1e-12, "{}", a.label);
        }
        assert!(r.table().contains("rate"), "{}", r.table());
        assert!(r.why.contains("of the fastest block's rate"), "{}", r.why);
    }
    // Rates are of the fastest block measured: one of them is 1.
    assert!(rates.values().any(|&r| r == 1.0), "{rates:?}");
    // Only the wave model uses them: the blocked kernel's reuse score ignores a rate under its
    // own label.
    let blocked = BlockedTiling {
        shape: Shape {
            m: 1000,
            k: 1000,
            n: 1000,
        },
    };
    let labels: Vec<String> = plain
        .analyse(&blocked)
        .into_iter()
        .map(|c| c.label)
        .collect();
    let all =
        common::hopper_planner().with_rates(labels.iter().map(|l| (l.clone(), 0.5)).collect());
    for (a, b) in plain.analyse(&blocked).iter().zip(all.analyse(&blocked)) {
        assert_eq!((b.rate, b.score), (None, a.score), "{}", a.label);
    }
}

/// The small-M kernel's splits on the hopper profile, with the registers NVIDIA's driver
/// allocated (f32 at eight rows per invocation: 72, three workgroups per multiprocessor). Sized
/// for four, f32 8×4096×4096 ran its 15 splits in two waves: 47 µs against 37 in 11
/// (BENCHMARKS.md, "The small-M kernel"). Pure planning: nothing is launched.
#[test]
fn the_small_m_kernels_split_counts_the_workgroups_the_registers_allow() {
    use tilekit::kernels::matmul::gemv::GemvTiling;
    let planner = common::hopper_planner();
    let plan = |m, k, n, precision| {
        let tiling = GemvTiling {
            shape: Shape { m, k, n },
            precision,
        };
        let p = planner.plan(&tiling).unwrap();
        let c = p.choice();
        (c.label.clone(), c.residency.workgroups, c.splits)
    };
    let tile = "WX=32,WK=8,KS=4".to_string();
    // 32 column groups; one wave holds 132 × 3 = 396 workgroups: 12 splits, 11 within 12%.
    assert_eq!(plan(8, 4096, 4096, Precision::F32), (tile.clone(), 3, 11));
    assert_eq!(plan(16, 4096, 4096, Precision::F32), (tile.clone(), 3, 6));
    // Four rows: 54 registers in f32 (four workgroups), 40 in f16 (six).
    assert_eq!(plan(4, 14336, 4096, Precision::F32), (tile.clone(), 4, 15));
    assert_eq!(plan(4, 14336, 4096, Precision::F16), (tile.clone(), 6, 22));
    // One row: the thread count binds (eight workgroups of 256).
    assert_eq!(plan(1, 4096, 4096, Precision::F16).1, 8);
}
