//! f16 matmul on the test adapter: every f16 kernel it has against the f64 reference at ragged
//! shapes, f16 compute of f32 data, the conversions, and the typed error where the matrix units
//! are missing (lavapipe has SHADER_F16 and no cooperative matrices). On an adapter with
//! cooperative matrices (the H100) the same tests run the `coop` kernel. The planner's f16
//! choices, with no GPU, are in `matmul_f16_plan.rs`.

mod common;
use common::{block, caps, gpu, random_f32, SQUARE};
use half::f16;
use tilekit::kernels::matmul::coop::{CoopTiling, DEEP_SLICES, FRAGMENT};
use tilekit::kernels::matmul::loads_in_place;
use tilekit::kernels::matmul::{f16_input_bound, f32_bound, reference, Precision, Shape};
use tilekit::kernels::matmul::{Selection, Variant};
use tilekit::Error;

/// Random values that f16 holds exactly, as f16 and as f32.
fn halves(len: usize, seed: u64) -> (Vec<f16>, Vec<f32>) {
    let h: Vec<f16> = random_f32(len, seed)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let f = h.iter().map(|x| x.to_f32()).collect();
    (h, f)
}

/// The f16 result of `variant` at M×K×N against the f64 reference: f32 accumulation (the f32
/// bound) and C rounded to f16 once (2⁻¹¹ of |C|).
fn check_f16(variant: Variant, shape: (usize, usize, usize), seed: u64) {
    check_f16_with(&Selection::Variant(variant), shape, seed);
}

fn check_f16_with(
    selection: &Selection,
    (m, k, n): (usize, usize, usize),
    seed: u64,
) -> tilekit::kernels::matmul::MatmulRun {
    let (a16, a) = halves(m * k, seed);
    let (b16, b) = halves(k * n, seed + 1);
    let variant = format!("{selection:?}");
    let (c, run) = gpu()
        .matmul(&a16, &b16, (m, k, n), selection)
        .wait()
        .unwrap_or_else(|e| panic!("{variant} {m}x{k}x{n}: {e}"));
    assert_f16_product(
        &c,
        (&a, &b),
        (m, k, n),
        &format!("{variant} ({})", run.tile),
    );
    run
}

/// Every element of the f16 product `c` of `a` and `b` (the f16 inputs, widened) against the f64
/// reference: f32 accumulation (the f32 bound) and C rounded to f16 once (2⁻¹¹ of |C|).
fn assert_f16_product(
    c: &[f16],
    (a, b): (&[f32], &[f32]),
    (m, k, n): (usize, usize, usize),
    what: &str,
) {
    let (exact, mag) = reference(a, b, m, k, n);
    for (i, ((g, e), mg)) in c.iter().zip(&exact).zip(&mag).enumerate() {
        let g = g.to_f64();
        let bound = f32_bound(k, *mg) + e.abs() * 2f64.powi(-11) + 2f64.powi(-24);
        assert!(
            (g - e).abs() <= bound,
            "{what} {m}x{k}x{n} element {i}: got {g}, expected {e}, bound {bound:e}"
        );
    }
}

// Ragged everywhere: K and N not multiples of 4 (loaded in place on skinny products, else the
// padding pass: 300×67×262), M not a multiple of any block, deep K (split-K), one row (the
// small-M kernel).
const SHAPES: [(usize, usize, usize); 8] = [
    (37, 53, 29),
    (300, 67, 262),
    (1, 77, 33),
    (5, 1000, 3),
    (130, 67, 129),
    (64, 64, 64),
    (17, 2051, 18),
    (200, 48, 260),
];

/// The f16 variants this adapter can run: none without SHADER_F16 (wgpu's GL back end), the
/// scalar ones with it (lavapipe), and `coop` too where the matrix units are (the H100).
fn f16_variants() -> Vec<Variant> {
    let g = gpu();
    Variant::all()
        .filter(|v| v.precision() == Precision::F16 && g.features().contains(v.needs()))
        .collect()
}

/// Where the adapter has no SHADER_F16, an f16 product is a typed error that names it: from the
/// selection, from a variant asked for by name, and from f16 compute of f32 data.
#[test]
fn without_shader_f16_every_f16_path_is_a_typed_error_naming_it() {
    let g = gpu();
    if g.features().contains(wgpu::Features::SHADER_F16) {
        // Vulkan's lavapipe and the GPUs: the f16 kernels must be there.
        assert!(f16_variants().len() >= 2, "{:?}", f16_variants());
        return;
    }
    let shape = Shape::new(33, 40, 17).unwrap();
    let e =
        tilekit::kernels::matmul::select(g, shape, Precision::F16, &Selection::Auto).unwrap_err();
    assert!(
        matches!(e, Error::Unsupported { .. }) && e.to_string().contains("SHADER_F16"),
        "{e}"
    );
    let (a16, _) = halves(64, 1);
    let e = g
        .matmul(
            &a16,
            &a16,
            (8, 8, 8),
            &Selection::Variant(Variant::PIPELINED_F16),
        )
        .wait()
        .unwrap_err();
    assert!(
        matches!(e, Error::MissingFeature { .. }) && e.to_string().contains("SHADER_F16"),
        "{e}"
    );
    let a = random_f32(64, 2);
    let e = g
        .matmul_f16(&a, &a, (8, 8, 8), &Selection::Auto)
        .wait()
        .unwrap_err();
    assert!(e.to_string().contains("SHADER_F16"), "{e}");
}

#[test]
fn every_f16_kernel_the_adapter_has_matches_the_f64_reference_at_ragged_shapes() {
    let variants = f16_variants();
    for v in variants {
        for (i, &shape) in SHAPES.iter().enumerate() {
            check_f16(v, shape, 40 + i as u64);
        }
    }
}

/// Past skinny products, a ragged K and N has A and B copied into rows of 4 in one launch
/// (`pad2`), in f16 as in f32 (tests/matmul.rs): the pipelined f16 kernel in 64×64×8 blocks at
/// 900×301×1003, where 16 blocks read each row of A and 15 each column of B, every element
/// against f64. Without SHADER_F16 (wgpu's GL back end) the same call is the typed error.
#[test]
fn both_ragged_f16_operands_are_copied_in_one_launch() {
    let g = gpu();
    let selection = Selection::Forced {
        variant: Variant::PIPELINED_F16,
        tile: tilekit::plan::Tile::block(64, 64, 8),
    };
    let shape = (900, 301, 1003);
    if !g.features().contains(wgpu::Features::SHADER_F16) {
        let (a16, _) = halves(900 * 301, 1);
        let (b16, _) = halves(301 * 1003, 2);
        let e = g.matmul(&a16, &b16, shape, &selection).wait().unwrap_err();
        assert!(matches!(e, Error::MissingFeature { .. }), "{e}");
        return;
    }
    let run = check_f16_with(&selection, shape, 150);
    assert!(run.tile.ends_with(" padded A and B"), "{}", run.tile);
}

/// What lies past the end of a row of A is the next row: no f16 kernel that reads a ragged K in
/// place may read it into this one. With an infinity at the start of row 1, rows 0 and 2 of C
/// stay finite and right (the slice at the end of row 0 would otherwise multiply it by a zero of
/// B: NaN), at skinny shapes (read in place) in every f16 variant the adapter has.
#[test]
fn a_ragged_row_of_a_never_reads_into_the_next_in_any_f16_kernel() {
    // N ragged too (every operand in scalars), and N a multiple of 4 (B's loads stay wide).
    for (m, k, n) in [(3, 301, 5), (3, 301, 8)] {
        row_of_a_stays_in_its_row(m, k, n);
    }
}

fn row_of_a_stays_in_its_row(m: usize, k: usize, n: usize) {
    assert!(loads_in_place(Shape::new(m, k, n).unwrap()));
    let (mut a16, _) = halves(m * k, 90);
    a16[k] = f16::INFINITY;
    let a: Vec<f32> = a16.iter().map(|x| x.to_f32()).collect();
    let (b16, b) = halves(k * n, 91);
    let (exact, mag) = reference(&a, &b, m, k, n);
    let variants = f16_variants();
    if variants.is_empty() {
        // No SHADER_F16 (wgpu's GL back end): no f16 kernel runs, and asking for one is the
        // typed error that names the feature.
        let e = gpu()
            .matmul(&a16, &b16, (m, k, n), &Selection::Auto)
            .wait()
            .unwrap_err();
        assert!(e.to_string().contains("SHADER_F16"), "{e}");
        return;
    }
    for v in variants {
        let (c, run) = gpu()
            .matmul(&a16, &b16, (m, k, n), &Selection::Variant(v))
            .wait()
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert!(!run.tile.contains("padded"), "{v}: {}", run.tile);
        for r in [0, 2] {
            for col in 0..n {
                let (g, e) = (c[r * n + col].to_f64(), exact[r * n + col]);
                let bound =
                    f32_bound(k, mag[r * n + col]) + e.abs() * 2f64.powi(-11) + 2f64.powi(-24);
                assert!(
                    (g - e).abs() <= bound,
                    "{v} ({}) row {r} column {col}: got {g}, expected {e}",
                    run.tile
                );
            }
        }
        assert!(
            c[n..2 * n].iter().all(|x| !x.is_finite()),
            "{v}: {:?}",
            &c[n..2 * n]
        );
    }
}

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

#[test]
fn f32_data_computed_in_f16_stays_f32_within_the_bound_f16_inputs_allow() {
    let g = gpu();
    if !g.features().contains(wgpu::Features::SHADER_F16) {
        return; // the typed error is tested above
    }
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        let a: Vec<f32> = random_f32(m * k, 60 + i as u64)
            .iter()
            .map(|x| x * 3.0)
            .collect();
        let b = random_f32(k * n, 80 + i as u64);
        let (c, run) = g
            .matmul_f16(&a, &b, (m, k, n), &Selection::Auto)
            .wait()
            .unwrap();
        assert_eq!(run.precision, Precision::F16);
        let (exact, mag) = reference(&a, &b, m, k, n);
        for (j, ((g, e), mg)) in c.iter().zip(&exact).zip(&mag).enumerate() {
            let bound = f32_bound(k, *mg) + f16_input_bound(*mg);
            assert!(
                (*g as f64 - e).abs() <= bound,
                "{m}x{k}x{n} {} element {j}: got {g}, expected {e}, bound {bound:e}",
                run.variant
            );
        }
        // The bound is not vacuous: f16 rounding is visible against the f32 product.
        assert!(f16_input_bound(mag[0]) < 1e-2 * mag[0]);
    }
    // A value f16 cannot hold is refused, by index, before anything runs.
    let mut a = random_f32(6, 1);
    a[4] = 1.0e5;
    let e = g
        .matmul_f16(&a, &a[..6], (2, 3, 2), &Selection::Auto)
        .wait()
        .unwrap_err();
    assert!(matches!(e, Error::OutOfRange { .. }), "{e}");
    assert!(e.to_string().contains("matrix A element 4"), "{e}");
}

#[test]
fn conversions_round_to_a_neighbouring_f16_and_widen_exactly() {
    let g = gpu();
    // An odd length (the last 32-bit word is half padding) with values across f16's range.
    let n = 1001;
    let x: Vec<f32> = random_f32(n, 9)
        .iter()
        .enumerate()
        .map(|(i, v)| v * 10f32.powi((i % 9) as i32 - 4))
        .collect();
    let dx = g.upload("x", &x).wait().unwrap();
    let (h, _) = g.convert::<_, half::f16>(&dx).wait().unwrap();
    let got = g.read(&h).wait().unwrap();
    assert_eq!(got.len(), n);
    for (i, (&v, &hv)) in x.iter().zip(&got).enumerate() {
        let nearest = f16::from_f32(v);
        // Round to nearest or toward zero (WGSL leaves the mode to the implementation): the
        // result is the nearest f16 or its neighbour toward zero.
        let ok = hv == nearest
            || (hv.to_f32().abs() <= v.abs() && (hv.to_f32() - v).abs() <= ulp(nearest));
        assert!(ok, "element {i}: {v} became {hv}, nearest {nearest}");
    }
    let (w, _) = g.convert::<_, f32>(&h).wait().unwrap();
    let back = g.read(&w).wait().unwrap();
    for (i, (&hv, &wv)) in got.iter().zip(&back).enumerate() {
        assert_eq!(hv.to_f32().to_bits(), wv.to_bits(), "element {i}");
    }
}

fn ulp(h: f16) -> f32 {
    let next = f16::from_bits(h.to_bits() + 1);
    (next.to_f32() - h.to_f32()).abs()
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
/// is sized for those waves. Measured: 64×128×32 on 64×4096×4096 ran 41.5 µs in 4 splits (one wave
/// of 128) and 53.4 in 8 (the split sized for two a multiprocessor); 64×64×32 on 8192×8192×64 136
/// µs in 2 splits against 146 in 4. Pure planning: nothing is launched.
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
