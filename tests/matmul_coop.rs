//! The cooperative (matrix-unit) f16 kernel on the test adapter: every block forced against the
//! f64 reference at ragged shapes, the selection's use of the matrix units, its loads and
//! workgroup memory as planned, the matrix ceiling and even shares. Where the adapter has no
//! cooperative matrices (lavapipe) each kernel test checks the typed error naming what is
//! missing. The other f16 kernels are in `matmul_f16.rs`.

mod common;
use common::f16::{assert_f16_product, check_f16_with, halves};
use common::{block, caps, gpu, SQUARE};
use tilekit::kernels::matmul::coop::{CoopTiling, DEEP_SLICES, FRAGMENT};
use tilekit::kernels::matmul::loads_in_place;
use tilekit::kernels::matmul::{Precision, Shape};
use tilekit::kernels::matmul::{Selection, Variant};
use tilekit::Error;

/// Every cooperative block, forced, against the f64 reference where the adapter has the matrix
/// units (the H100: BENCHMARKS.md): M, K and N ragged, C with fewer columns than the block, K
/// split into depths that are not a multiple of four slices: at 8300×1030×61 the 256×64 block,
/// which loads slices in groups of four, runs splits of 17 slices and a last one of 14, each
/// padded with slices of zeros to whole groups; at 33×20001×515 the 32×512 block's splits are
/// deep enough (at least `DEEP_SLICES`) for it to load in groups too. Where the
/// adapter has no cooperative matrices (lavapipe) the kernel cannot be built: the test then
/// checks that a forced block is refused with the typed error naming what is missing.
#[test]
fn every_cooperative_block_matches_the_f64_reference_at_ragged_shapes() {
    use tilekit::plan::Tiling;
    let g = gpu();
    let blocks: Vec<String> = CoopTiling::new(SQUARE, &caps(vec![FRAGMENT], [32, 32]), "h100")
        .unwrap()
        .candidates()
        .into_iter()
        .map(|spec| spec.label)
        .collect();
    assert!(blocks.iter().any(|b| b == "256x64x16"), "{blocks:?}");
    let has_coop = g.features().contains(Variant::COOP.needs())
        && g.summary.cooperative_matrices.contains(&FRAGMENT);
    for (i, tile) in blocks.iter().enumerate() {
        let selection = Selection::Forced {
            variant: Variant::COOP,
            tile: block(tile),
        };
        if !has_coop {
            let (a16, _) = halves(64 * 64, 1);
            let e = g
                .matmul(&a16, &a16, (64, 64, 64), &selection)
                .wait()
                .unwrap_err();
            assert!(
                matches!(e, Error::MissingFeature { .. } | Error::Unsupported { .. }),
                "{tile}: {e}"
            );
            continue;
        }
        // A block the adapter cannot hold (256×128×16 on the H100) is refused, never run.
        match tilekit::kernels::matmul::select(g, SQUARE, Precision::F16, &selection) {
            Err(Error::TileTooLarge { .. }) => continue,
            Err(e) => panic!("{tile}: {e}"),
            Ok(_) => {}
        }
        for (j, shape) in [
            (300, 1000, 60),
            (8300, 1030, 61),
            (37, 53, 29),
            (130, 40, 200),
            (33, 20001, 515),
            (300, 67, 262),
            // Skinny, read in place with only N ragged (A's loads wide) and only K (B's wide).
            (64, 1000, 61),
            (40, 1001, 200),
            // Not skinny, copied: only A (K ragged, B's rows left as they are), only B.
            (300, 1001, 300),
            (300, 1000, 301),
        ]
        .into_iter()
        .enumerate()
        {
            let run = check_f16_with(&selection, shape, 100 + 10 * i as u64 + j as u64);
            // A skinny ragged product is read where it lies, a larger one copied first.
            let (m, k, n) = shape;
            // A skinny ragged product is read where it lies, a larger one has the operand that
            // K or N misaligns copied first (A for K, B for N), and the tile says which.
            let copied = match (k % 4 != 0, n % 4 != 0) {
                _ if loads_in_place(Shape::new(m, k, n).unwrap()) => None,
                (true, true) => Some(" padded A and B"),
                (true, false) => Some(" padded A"),
                (false, true) => Some(" padded B"),
                (false, false) => None,
            };
            assert!(
                copied.map_or(!run.tile.contains("padded"), |c| run.tile.ends_with(c)),
                "{tile} {m}x{k}x{n}: {}",
                run.tile
            );
            if tile == "32x512x16" && shape.1 == 20001 {
                // The grouped loop ran: each split at least DEEP_SLICES slices deep.
                let depth = if run.splits == 1 { 20004 } else { run.k_split };
                assert!(
                    depth >= DEEP_SLICES * 16,
                    "{tile}: {} splits of {depth}",
                    run.splits
                );
            }
        }
    }
}

#[test]
fn the_chosen_f16_kernel_uses_the_matrix_units_exactly_when_the_adapter_has_them() {
    let g = gpu();
    if !g.features().contains(wgpu::Features::SHADER_F16) {
        return; // no f16 kernel at all: the typed errors are tested above
    }
    let has_coop = g.features().contains(Variant::COOP.needs())
        && g.summary.cooperative_matrices.contains(&FRAGMENT);
    let big = Shape::new(256, 256, 256).unwrap();
    let choice =
        tilekit::kernels::matmul::select(g, big, Precision::F16, &Selection::Auto).unwrap();
    if has_coop {
        assert_eq!(choice.variant, Variant::COOP);
    } else {
        assert_eq!(choice.variant, Variant::PIPELINED_F16);
        // Asked for by name, it is a typed error naming what is missing.
        let (a16, _) = halves(64 * 64, 1);
        let e = g
            .matmul(&a16, &a16, (64, 64, 64), &Selection::Variant(Variant::COOP))
            .wait()
            .unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, Error::MissingFeature { .. } | Error::Unsupported { .. }),
            "{text}"
        );
        assert!(
            text.contains("EXPERIMENTAL_COOPERATIVE_MATRIX") || text.contains("16x16x16"),
            "{text}"
        );
    }
    let small = Shape::new(1, 4096, 4096).unwrap();
    assert_eq!(
        tilekit::kernels::matmul::select(g, small, Precision::F16, &Selection::Auto)
            .unwrap()
            .variant,
        Variant::GEMV_F16
    );
    // 12 rows (no measured default near it): the matrix units' 32×512 block where the adapter
    // has them (faster than the small-M kernel from 9 rows on the H100), else the small-M kernel.
    let rows12 = Shape::new(12, 4096, 11008).unwrap();
    assert_eq!(
        tilekit::kernels::matmul::select(g, rows12, Precision::F16, &Selection::Auto)
            .unwrap()
            .variant,
        if has_coop {
            Variant::COOP
        } else {
            Variant::GEMV_F16
        }
    );
}

/// Every cooperative block keeps each operand's global loads within the shader's `MAX_LOADS`
/// (8 vec4s per invocation per slice, `shaders/matmul_coop.wgsl`): a block past it would index
/// past the end of the shader's `Slice` arrays. Pure planning: nothing is launched.
#[test]
fn every_coop_block_keeps_its_loads_within_the_shaders_arrays() {
    let planner = common::hopper_planner();
    let shape = Shape {
        m: 24,
        k: 4096,
        n: 4096,
    };
    let tiling = CoopTiling::new(shape, &caps(vec![FRAGMENT], [32, 32]), "h100").unwrap();
    let max_loads = include_str!("../shaders/matmul_coop.wgsl")
        .lines()
        .find_map(|l| l.strip_prefix("const MAX_LOADS: u32 = "))
        .and_then(|rest| rest.split('u').next())
        .and_then(|v| v.parse::<u32>().ok())
        .expect("the shader declares MAX_LOADS");
    let candidates = planner.analyse(&tiling);
    assert!(candidates.iter().any(|c| c.label == "32x512x16"));
    for c in candidates {
        let k = |name: &str| c.constants.iter().find(|x| x.0 == name).unwrap().1;
        let (bm, bn, bk) = (k("BM"), k("BN"), k("BK"));
        let inv = c.usage.invocations;
        let (a, b) = ((bm * bk / 4).div_ceil(inv), (bk * bn / 4).div_ceil(inv));
        assert!(
            a <= max_loads && b <= max_loads,
            "{}: {a} and {b} loads per invocation, the shader holds {max_loads}",
            c.label
        );
    }
}

/// NVIDIA's Vulkan driver gives a multiprocessor 48 KiB of workgroup memory, not the 228 KiB a CUDA
/// kernel can opt into (H100, BENCHMARKS.md, "Workgroup memory per multiprocessor": 6 workgroups of
/// 8 KiB resident, 3 of 16, 1 of 28). So a small cooperative block is held by its staging, not its
/// registers: 64×64×32 (21 KiB) two to a multiprocessor, 64×128×32 (31 KiB) one, and the split of K
/// is sized for those waves (BENCHMARKS.md, "Split of K by waves"). Pure planning: nothing is
/// launched.
#[test]
fn small_coop_blocks_are_held_by_their_workgroup_memory() {
    use tilekit::plan::Resource;
    let planner = common::hopper_planner();
    let plan = |m, k, n, tile: &str| {
        let tiling =
            CoopTiling::new(Shape { m, k, n }, &caps(vec![FRAGMENT], [32, 32]), "h100").unwrap();
        planner
            .plan_forced(&tiling, &planner.tile_named(&tiling, tile).unwrap())
            .unwrap()
    };
    for (tile, resident, binds) in [
        ("128x256x16", 1, Resource::Registers),
        ("64x128x32", 1, Resource::WorkgroupMemory),
        ("64x64x32", 2, Resource::WorkgroupMemory),
    ] {
        let r = plan(4096, 4096, 4096, tile).choice().residency;
        assert_eq!((r.workgroups, r.binding), (resident, binds), "{tile}");
    }
    let splits = |m, k, n, tile| plan(m, k, n, tile).choice().splits;
    assert_eq!(splits(64, 4096, 4096, "64x128x32"), 4);
    assert_eq!(splits(8192, 8192, 64, "64x64x32"), 2);
}

/// The matrix units' ceiling (`tilekit bench`'s `ceiling/matrix`) runs exactly where the
/// cooperative kernel can: on the H100 every subgroup's accumulators, in a sink poisoned first,
/// come back as `iterations · A·B` (the check `Gpu::matrix_ceiling_verified` makes, itself shown
/// to fail on the poisoned sink and on a run of other iterations); on lavapipe, which lists no
/// cooperative matrices, it is a typed error naming what is missing.
#[test]
fn the_matrix_ceiling_runs_exactly_where_the_cooperative_kernel_can() {
    let g = gpu();
    let has_coop = g.features().contains(Variant::COOP.needs())
        && g.summary.cooperative_matrices.contains(&FRAGMENT);
    let (groups, iterations) = (5, 37);
    if !has_coop {
        let e = tilekit::ceiling::matrix_sink_len(g, groups).unwrap_err();
        assert!(
            matches!(e, Error::MissingFeature { .. } | Error::Unsupported { .. }),
            "{e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("COOPERATIVE_MATRIX") || text.contains("SHADER_F16"),
            "{text}"
        );
        assert!(tilekit::ceiling::matrix_flops(g, groups, iterations).is_err());
        return;
    }
    let len = tilekit::ceiling::matrix_sink_len(g, groups).unwrap();
    let sink = g.alloc::<f32>("sink", len).wait().unwrap();
    assert!(
        !tilekit::ceiling::matrix_verified(g, &sink, groups, iterations)
            .wait()
            .unwrap(),
        "a poisoned sink passed the check"
    );
    tilekit::ceiling::matrix(g, &sink, groups, iterations)
        .wait()
        .unwrap();
    assert!(
        tilekit::ceiling::matrix_verified(g, &sink, groups, iterations)
            .wait()
            .unwrap()
    );
    assert!(
        !tilekit::ceiling::matrix_verified(g, &sink, groups, iterations + 1)
            .wait()
            .unwrap()
    );
    let subgroups = 256 / g.caps().subgroup_sizes[0] as u64;
    assert_eq!(
        tilekit::ceiling::matrix_flops(g, groups, iterations).unwrap(),
        groups as u64 * subgroups * iterations as u64 * 8 * 2 * 4096
    );
    // A sink too short is refused, never written past.
    let short = g.alloc::<f32>("short sink", len - 1).wait().unwrap();
    assert!(tilekit::ceiling::matrix(g, &short, groups, iterations)
        .wait()
        .is_err());
}

/// Even shares on the matrix units (`coop_stream`, then `stream_fixup`): every block's slices laid
/// end to end and cut into as many even shares as the GPU holds workgroups, the pieces of a block
/// held by several shares summed into C by a second pass. Planned here on GPUs of 2 to 5
/// multiprocessors of the hopper profile, where a deep K makes the partial blocks cheap beside
/// the work they spread: at ragged M, K and N (operands copied into rows of 4, a C of ragged N
/// stored element by element) and on a skinny product (read in place). Where the adapter has
/// cooperative matrices every element of C must come out right; elsewhere (lavapipe) the forced
/// block is refused with the typed error.
#[test]
fn even_shares_of_cooperative_blocks_come_out_whole() {
    let g = gpu();
    let has_coop = g.features().contains(Variant::COOP.needs())
        && g.summary.cooperative_matrices.contains(&FRAGMENT);
    for (i, (mps, m, k, n, tile)) in [
        (4, 300, 20001, 600, "128x256x16"),
        (5, 301, 12001, 517, "128x256x16"),
        (4, 333, 10007, 301, "128x128x32"),
        (2, 150, 8001, 150, "64x64x32"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut profile = tilekit::DeviceProfile::named("hopper").unwrap();
        profile.multiprocessors = Some(mps);
        let planner =
            tilekit::Planner::new(tilekit::Limits::preset("h100").unwrap(), profile.clone());
        let shape = Shape::new(m, k, n).unwrap();
        let tiling = CoopTiling::new(shape, &caps(vec![FRAGMENT], [32, 32]), "h100").unwrap();
        let plan = planner
            .plan_forced(&tiling, &planner.tile_named(&tiling, tile).unwrap())
            .unwrap();
        let shares = plan.choice().shares.expect("planned in even shares");
        assert_eq!(
            shares.workgroups, plan.dispatch.count as u64,
            "{tile} {m}x{k}x{n}"
        );
        let selection = Selection::Forced {
            variant: Variant::COOP,
            tile: block(tile),
        };
        let (a16, a) = halves(m * k, 300 + i as u64);
        let (b16, b) = halves(k * n, 400 + i as u64);
        if !has_coop {
            let e = g
                .matmul(&a16, &b16, (m, k, n), &selection)
                .wait()
                .unwrap_err();
            assert!(
                matches!(e, Error::MissingFeature { .. } | Error::Unsupported { .. }),
                "{tile}: {e}"
            );
            continue;
        }
        let mut on = tilekit::Gpu::with_options(tilekit::GpuOptions {
            poison_outputs: true,
            ..Default::default()
        })
        .wait()
        .unwrap();
        on.profile = profile;
        let (c, run) = on.matmul(&a16, &b16, (m, k, n), &selection).wait().unwrap();
        assert!(
            run.tile.contains("even shares"),
            "{m}x{k}x{n}: {}",
            run.tile
        );
        assert_f16_product(&c, (&a, &b), (m, k, n), &run.tile);
    }
}
