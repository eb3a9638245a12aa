//! Property tests for every family against the CPU reference: random shapes, element types,
//! variants and data (the data's seed is part of each case, so a failure prints it with the
//! shrunk input). The case count is `PROPTEST_CASES` (default 12 per property: CI's budget);
//! `PROPTEST_CASES=500 cargo test --test properties` searches harder.

mod common;
use common::{gpu, random_f32, random_i32, random_u32};
use proptest::prelude::*;
use tilekit::kernels::{blur, histogram, matmul, reduce, reverse, transpose, wide};

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn matmul_any_shape_any_variant(m in 1usize..150, k in 1usize..300, n in 1usize..150,
                                    v in 0usize..8, seed in any::<u64>()) {
        let variants: Vec<_> = matmul::Variant::all()
            .filter(|v| v.precision() == matmul::Precision::F32)
            .collect();
        let variant = variants[v % variants.len()];
        let a = random_f32(m * k, seed);
        let b = random_f32(k * n, seed ^ 1);
        let (c, _) = gpu().matmul(&a, &b, (m, k, n), &matmul::Selection::Variant(variant)).wait().unwrap();
        let (exact, mag) = matmul::reference(&a, &b, m, k, n);
        prop_assert!(matmul::verify(&c, &exact, &mag, k).is_ok(), "{variant} {m}x{k}x{n} seed {seed}");
    }

    #[test]
    fn reverse_any_length_any_word(n in 1usize..5000, seed in any::<u64>()) {
        let x = random_u32(n, seed);
        let (y, _) = gpu().reverse(&x, tilekit::kernels::reverse::Variant::Block).wait().unwrap();
        prop_assert!(y.iter().eq(x.iter().rev()));
        let x64: Vec<u64> = x.iter().map(|&v| (v as u64) << 17 | seed & 0xffff).collect();
        let (y64, _) = gpu().reverse(&x64, tilekit::kernels::reverse::Variant::Block).wait().unwrap();
        prop_assert!(y64.iter().eq(x64.iter().rev()));
        if n <= 1024 {
            let (yd, _) = gpu().reverse(&x, tilekit::kernels::reverse::Variant::Dynamic).wait().unwrap();
            prop_assert!(yd.iter().eq(x.iter().rev()), "dynamic, n = {n}");
        }
        let _ = reverse::Variant::ALL;
    }

    #[test]
    fn transpose_any_shape_any_variant(r in 1usize..120, c in 1usize..120, v in 0usize..3, seed in any::<u64>()) {
        let variant = transpose::Variant::ALL[v];
        let x = random_u32(r * c, seed);
        let (y, _) = gpu().transpose(&x, r, c, variant, None).wait().unwrap();
        for (i, val) in x.iter().enumerate() {
            prop_assert_eq!(y[(i % c) * r + i / c], *val, "{:?} {}x{}", variant, r, c);
        }
    }

    #[test]
    fn reduce_any_length_type_op_variant(n in 1usize..70_000, op in 0usize..3, v in 0usize..reduce::Variant::ALL.len(), seed in any::<u64>()) {
        let g = gpu();
        let op = reduce::Op::ALL[op];
        let variant = reduce::Variant::ALL[v];
        prop_assume!(g.features().contains(variant.needs()));
        let xi = random_i32(n, seed, -100_000, 100_000);
        let (got, _) = g.reduce_with(&g.upload("x", &xi).wait().unwrap(), op, variant).wait().unwrap();
        let want = match op {
            reduce::Op::Sum => xi.iter().fold(0i32, |a, &b| a.wrapping_add(b)),
            reduce::Op::Min => *xi.iter().min().unwrap(),
            reduce::Op::Max => *xi.iter().max().unwrap(),
        };
        prop_assert_eq!(got, want, "{:?} {:?} n = {}", variant, op, n);
        let xf = random_f32(n, seed ^ 7);
        let (got, _) = g.reduce_with(&g.upload("x", &xf).wait().unwrap(), op, variant).wait().unwrap();
        let exact: f64 = match op {
            reduce::Op::Sum => xf.iter().map(|&v| v as f64).sum(),
            reduce::Op::Min => xf.iter().fold(f64::INFINITY, |a, &b| a.min(b as f64)),
            reduce::Op::Max => xf.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64)),
        };
        let bound = 40.0 * 2f64.powi(-24) * xf.iter().map(|v| v.abs() as f64).sum::<f64>();
        prop_assert!(((got as f64) - exact).abs() <= bound, "{:?} {:?} n = {}: {} vs {}", variant, op, n, got, exact);
    }

    #[test]
    fn histogram_any_length(n in 1usize..20_000, v in 0usize..2, seed in any::<u64>()) {
        let variant = histogram::Variant::ALL[v];
        let x = random_u32(n, seed);
        let (h, _) = gpu().histogram(&x, variant).wait().unwrap();
        let mut want = [0u32; 256];
        x.iter().for_each(|&v| want[(v & 255) as usize] += 1);
        prop_assert_eq!(h, want);
    }

    #[test]
    fn copy_any_length_any_width(n in 1usize..10_000, w in 0usize..2, seed in any::<u64>()) {
        let x = random_u32(n, seed);
        let g = gpu();
        let (src, dst) = (g.upload("x", &x).wait().unwrap(), g.alloc::<u32>("y", n).wait().unwrap());
        g.copy_on_device(&src, &dst, wide::Width::ALL[w]).wait().unwrap();
        let y = g.read(&dst).wait().unwrap();
        prop_assert_eq!(y, x);
    }

    #[test]
    fn blur_any_image_radius_variant(w in 1usize..70, h in 1usize..70, r in 0u32..5, v in 0usize..2, seed in any::<u64>()) {
        let variant = blur::Variant::ALL[v];
        let img = random_f32(w * h, seed);
        let (out, _) = gpu().blur(&img, w, h, r, variant).wait().unwrap();
        let (exact, mag) = blur::reference(&img, w, h, r);
        for i in 0..w * h {
            let bound = 4.0 * 2f64.powi(-24) * mag[i] * ((2 * r + 1) * (2 * r + 1)) as f64 + 1e-30;
            prop_assert!(((out[i] as f64) - exact[i]).abs() <= bound, "{:?} {}x{} r={} at {}", variant, w, h, r, i);
        }
    }
}
