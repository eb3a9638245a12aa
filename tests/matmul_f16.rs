//! f16 matmul on the test adapter: every f16 kernel it has against the f64 reference at ragged
//! shapes, f16 compute of f32 data, the conversions, and the typed error where the matrix units
//! are missing (lavapipe has SHADER_F16 and no cooperative matrices). On an adapter with
//! cooperative matrices (the H100) the same tests run the `coop` kernel; its own blocks, shares
//! and ceiling are in `matmul_coop.rs`. The planner's f16 choices, with no GPU, are in
//! `matmul_f16_plan.rs`.

mod common;
use common::f16::{check_f16, check_f16_with, halves};
use common::{gpu, random_f32};
use half::f16;
use tilekit::kernels::matmul::loads_in_place;
use tilekit::kernels::matmul::{f16_input_bound, f32_bound, reference, Precision, Shape};
use tilekit::kernels::matmul::{Selection, Variant};
use tilekit::Error;

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
