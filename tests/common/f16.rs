//! The f16 products' helpers of `matmul_f16.rs` and `matmul_coop.rs`: inputs f16 holds exactly,
//! and every element of an f16 product against the f64 reference.

use super::{gpu, random_f32};
use half::f16;
use tilekit::kernels::matmul::{f32_bound, reference, Selection, Variant};

/// Random values that f16 holds exactly, as f16 and as f32.
pub fn halves(len: usize, seed: u64) -> (Vec<f16>, Vec<f32>) {
    let h: Vec<f16> = random_f32(len, seed)
        .into_iter()
        .map(f16::from_f32)
        .collect();
    let f = h.iter().map(|x| x.to_f32()).collect();
    (h, f)
}

/// The f16 result of `variant` at M×K×N against the f64 reference: f32 accumulation (the f32
/// bound) and C rounded to f16 once (2⁻¹¹ of |C|).
pub fn check_f16(variant: Variant, shape: (usize, usize, usize), seed: u64) {
    check_f16_with(&Selection::Variant(variant), shape, seed);
}

pub fn check_f16_with(
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
pub fn assert_f16_product(
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
