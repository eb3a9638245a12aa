//! Matrix multiply on a real adapter against the f64 CPU reference: every variant, every tile
//! the planner can pick under WebGPU's baseline limits and under the adapter's, odd shapes.

mod common;
use common::{gpu, random_f32};
use proptest::prelude::*;
use tilekit::kernels::matmul::{reference, verify, Caps, Precision, Shape, Variant};
use tilekit::{Error, Limits, Planner};

/// The f32 variants this adapter can run.
fn f32_variants() -> Vec<Variant> {
    Variant::all()
        .filter(|v| v.kernel().precision() == Precision::F32 && gpu().has(v.kernel().needs()))
        .collect()
}

fn check(m: usize, k: usize, n: usize, variant: Variant, tile: Option<&str>, seed: u64) {
    let g = gpu();
    let a = random_f32(m * k, seed);
    let b = random_f32(k * n, seed + 1);
    let (c, run) = g.matmul_with(&a, &b, (m, k, n), variant, tile).unwrap();
    let (exact, mag) = reference(&a, &b, m, k, n);
    verify(&c, &exact, &mag, k)
        .unwrap_or_else(|e| panic!("{m}x{k}x{n} {variant:?} {}: {e}", run.tile));
}

// K and N multiples of 4 take the blocked kernel's vec4 path; the others the scalar one.
const SHAPES: [(usize, usize, usize); 11] = [
    (33, 36, 44),
    (1, 4, 4),
    (1, 1, 1),
    (1, 300, 1),
    (37, 1, 29),
    (17, 33, 5),
    (63, 64, 65),
    (129, 257, 67),
    (5, 70, 200),
    (200, 70, 5),
    (96, 128, 80),
];

// Deep K and few rows: the fast variants split K over many workgroups and add the partial
// products; ragged K and N take their padding pass.
const SPLIT_SHAPES: [(usize, usize, usize); 6] = [
    (1, 4099, 9),
    (8, 5000, 12),
    (17, 2048, 33),
    (64, 3001, 64),
    (2, 513, 1),
    (16, 1024, 260),
];

#[test]
fn split_k_and_padding_at_deep_k() {
    for (i, &(m, k, n)) in SPLIT_SHAPES.iter().enumerate() {
        for v in [Variant::PIPELINED, Variant::GEMV] {
            check(m, k, n, v, None, 100 + i as u64);
        }
    }
}

#[test]
fn every_variant_on_odd_shapes() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        for v in f32_variants() {
            check(m, k, n, v, None, 10 * i as u64);
        }
    }
}

#[test]
fn every_tile_the_planner_can_pick_baseline_and_adapter() {
    // The second shape takes the blocked kernel's vec4 path.
    let tried = every_tile(67, 45, 71) + every_tile(68, 44, 72) + every_tile(3, 301, 37);
    assert!(tried >= 40, "only {tried} tiles tried");
}

fn every_tile(m: usize, k: usize, n: usize) -> usize {
    let g = gpu();
    let shape = Shape::new(m, k, n).unwrap();
    let mut tried = 0;
    for limits in [Limits::webgpu_default(), g.limits().clone()] {
        let planner = Planner::new(limits, g.profile.clone());
        for variant in f32_variants() {
            let Some(tiling) = variant.kernel().tiling(shape, &Caps::of(g)).unwrap() else {
                continue;
            };
            let plan = planner.plan(tiling.as_ref()).unwrap();
            for c in plan.candidates.iter().filter(|c| c.refused.is_none()) {
                check(m, k, n, variant, Some(&c.label), 7);
                tried += 1;
            }
        }
    }
    tried
}

#[test]
fn square_512_with_the_default_variant() {
    let g = gpu();
    let (m, k, n) = (512, 512, 512);
    let a = random_f32(m * k, 99);
    let b = random_f32(k * n, 98);
    let c = g.matmul(&a, &b, m, k, n).unwrap();
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
        .matmul_with(&a, &b, (m, k, n), Variant::NAIVE, None)
        .unwrap();
    assert_eq!(
        naive.ratio, 1.0,
        "PMPP fig 4.3: one multiply-add per two loads"
    );
    let (_, tiled) = g
        .matmul_with(&a, &b, (m, k, n), Variant::TILED, Some("TILE=16"))
        .unwrap();
    assert_eq!(
        tiled.ratio, 16.0,
        "tiling cuts global loads by the tile width"
    );
    assert_eq!(naive.global_loads, 16 * tiled.global_loads);
}

#[test]
fn bad_shapes_are_typed_errors() {
    let g = gpu();
    let a = random_f32(6, 1);
    match g.matmul(&a, &a, 2, 3, 3) {
        Err(Error::DimensionMismatch { expected, got, .. }) => {
            assert_eq!((expected.as_str(), got.as_str()), ("9", "6"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        g.matmul(&[], &[], 0, 3, 3),
        Err(Error::ZeroSize { .. })
    ));
    assert!(matches!(
        Shape::new(1 << 20, 1 << 20, 1),
        Err(Error::SizeOverflow { .. })
    ));
    // A matrix over max_storage_buffer_binding_size.
    let side = ((g.limits().max_storage_buffer_binding_size / 4) as f64).sqrt() as usize + 1;
    match g.matmul_with(&[1.0f32], &[1.0], (side, 1, side), Variant::NAIVE, None) {
        Err(Error::DimensionMismatch { .. }) => {}
        other => panic!("{other:?}"),
    }
    let e = g.check_buffer::<f32>("matrix C", side * side).unwrap_err();
    assert!(
        e.to_string().contains("max_storage_buffer_binding_size"),
        "{e}"
    );
    // A tile the adapter cannot hold.
    let too_big = format!("TILE={}", 64);
    assert!(g
        .matmul_with(&a, &a, (2, 3, 2), Variant::TILED, Some(&too_big))
        .is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn random_shapes_match_the_reference(m in 1usize..200, k in 1usize..200, n in 1usize..200, v in 0usize..16, seed in 0u64..1000) {
        let vs = f32_variants();
        check(m, k, n, vs[v % vs.len()], None, seed);
    }
}
