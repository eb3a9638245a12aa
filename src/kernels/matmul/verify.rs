//! The matmul's CPU reference in f64 and the error bounds its results are checked against
//! (docs/measuring.md): every test, the command line, the bench, the tour and the autotuner
//! use these.

use crate::kernels::check_element;
use crate::{Error, Result};

/// The CPU reference in f64: C = A·B, and for each element Σ|A_ik·B_kj| (for error bounds).
pub fn reference(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0f64; m * n];
    let mut mag = vec![0.0f64; m * n];
    for i in 0..m {
        for kk in 0..k {
            let av = a[i * k + kk] as f64;
            let row = &b[kk * n..kk * n + n];
            for j in 0..n {
                let p = av * row[j] as f64;
                c[i * n + j] += p;
                mag[i * n + j] += p.abs();
            }
        }
    }
    (c, mag)
}

/// The error bound of an f32 matmul element: 1e-5·√K·Σ|a·b| (docs/measuring.md).
pub fn f32_bound(k: usize, magnitude: f64) -> f64 {
    1e-5 * (k as f64).sqrt() * magnitude + 1e-30
}

/// The error bound of an f16 product's element (f16 operands, f32 accumulation, C rounded to
/// f16 once): the f32 bound plus 2⁻¹¹ of |C| <= 2⁻¹¹·Σ|a·b|.
pub fn f16_bound(k: usize, magnitude: f64) -> f64 {
    f32_bound(k, magnitude) + 2f64.powi(-11) * magnitude
}

/// What rounding each operand to f16 once adds to an element's error (f16 compute of f32 data):
/// a' = a(1+δ), b' = b(1+ε) with |δ|, |ε| <= 2⁻¹⁰ (round toward zero; 2⁻¹¹ to nearest), so
/// |a'b' − ab| <= 2⁻⁹·|ab| and the sum is within 2⁻⁹·Σ|a·b|.
pub fn f16_input_bound(magnitude: f64) -> f64 {
    2f64.powi(-9) * magnitude
}

/// Compare a GPU result with [`reference()`] within [`f32_bound`]. Returns the first failure.
pub fn verify(c: &[f32], exact: &[f64], magnitude: &[f64], k: usize) -> Result<()> {
    if c.len() != exact.len() {
        return Err(Error::mismatch("result length", exact.len(), c.len()));
    }
    for (i, ((&g, &e), &mag)) in c.iter().zip(exact).zip(magnitude).enumerate() {
        check_element(
            "matmul",
            || format!("element {i}"),
            g as f64,
            e,
            f32_bound(k, mag),
        )?;
    }
    Ok(())
}

/// [`verify`] on `samples` elements of C chosen from a fixed seed, for sizes where the full f64
/// reference is too slow (the bench and the tour at GPU sizes). `bound` gives an element's
/// error bound from K and Σ|a·b|.
pub fn verify_sampled(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    (m, k, n): (usize, usize, usize),
    samples: usize,
    bound: impl Fn(usize, f64) -> f64,
) -> Result<()> {
    // A small LCG: the library does not depend on `rand`.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |below: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % below
    };
    for _ in 0..samples {
        let (i, j) = (next(m), next(n));
        let (mut e, mut mag) = (0.0f64, 0.0f64);
        for kk in 0..k {
            let p = a[i * k + kk] as f64 * b[kk * n + j] as f64;
            e += p;
            mag += p.abs();
        }
        let g = c[i * n + j] as f64;
        check_element("matmul", || format!("C[{i}][{j}]"), g, e, bound(k, mag))?;
    }
    Ok(())
}
