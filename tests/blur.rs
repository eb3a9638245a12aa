//! Blur on a real adapter against the f64 reference; the ratio of the lesson.

mod common;
use common::{gpu, random_f32};
use tilekit::kernels::blur::{reference, verify, Variant};

#[test]
fn naive_and_tiled_match_the_reference() {
    let g = gpu();
    for &(w, h) in &[(1usize, 1usize), (1, 40), (40, 1), (37, 23), (100, 65)] {
        let img = random_f32(w * h, (w * 100 + h) as u64);
        for r in [0u32, 1, 2, 4] {
            let exact = reference(&img, w, h, r);
            for v in Variant::ALL {
                let (out, _) = g.blur(&img, w, h, r, v).wait().unwrap();
                verify(&out, &exact, r).unwrap_or_else(|e| panic!("{v:?} {w}x{h} r={r}: {e}"));
            }
        }
    }
}

#[test]
fn the_ratio_is_one_for_naive_and_higher_tiled() {
    let g = gpu();
    let img = random_f32(64 * 64, 3);
    let (_, naive) = g.blur(&img, 64, 64, 1, Variant::Naive).wait().unwrap();
    let (_, tiled) = g.blur(&img, 64, 64, 1, Variant::Tiled).wait().unwrap();
    assert_eq!(naive.ratio, 1.0);
    assert!(tiled.ratio > 5.0, "{}", tiled.ratio);
    assert!(g.blur(&img, 64, 63, 1, Variant::Naive).wait().is_err());
}

/// The naive blur stages nothing in workgroup memory, so any radius runs (PMPP fig 4.1); the
/// tiled one at a radius whose halo no tile's workgroup memory holds is a typed error naming
/// the limit.
#[test]
fn a_naive_blur_runs_at_a_radius_no_tile_holds() {
    let g = gpu();
    let (w, h, r) = (37, 29, 64);
    let img = random_f32(w * h, 11);
    let (out, _) = g.blur(&img, w, h, r, Variant::Naive).wait().unwrap();
    verify(&out, &reference(&img, w, h, r), r).unwrap();
    if g.limits().max_compute_workgroup_storage_size < 4 * (8 + 2 * r) * (8 + 2 * r) {
        let e = g.blur(&img, w, h, r, Variant::Tiled).wait().unwrap_err();
        assert!(
            e.to_string().contains("max_compute_workgroup_storage_size"),
            "{e}"
        );
    }
}
