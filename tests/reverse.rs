//! Reverse on a real adapter: the article's 64-element case, dynamic sizes, any n.

mod common;
use common::{gpu, random_f32, random_i32};
use tilekit::Error;

#[test]
fn the_articles_static_case() {
    let input: Vec<i32> = (0..64).collect();
    let (out, _) = gpu()
        .reverse(&input, tilekit::kernels::reverse::Variant::Static)
        .wait()
        .unwrap();
    assert_eq!(out, (0..64).rev().collect::<Vec<i32>>());
    assert!(matches!(
        gpu()
            .reverse(&input[..63], tilekit::kernels::reverse::Variant::Static)
            .wait(),
        Err(Error::DimensionMismatch { .. })
    ));
}

#[test]
fn dynamic_sizes_up_to_the_invocation_limit() {
    let g = gpu();
    for n in [1usize, 2, 63, 64, 100, 255, 256] {
        let x = random_i32(n, n as u64, -1000, 1000);
        let (out, _) = g
            .reverse(&x, tilekit::kernels::reverse::Variant::Dynamic)
            .wait()
            .unwrap();
        assert_eq!(out, x.iter().rev().cloned().collect::<Vec<_>>(), "n={n}");
    }
    let too_many = g.limits().max_compute_invocations_per_workgroup as usize + 1;
    match g
        .reverse(
            &vec![0i32; too_many],
            tilekit::kernels::reverse::Variant::Dynamic,
        )
        .wait()
    {
        Err(Error::TileTooLarge { limit_name, .. }) => {
            assert_eq!(limit_name, "max_compute_invocations_per_workgroup")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn block_reverse_of_any_n() {
    let g = gpu();
    for n in [1usize, 7, 255, 256, 257, 1000, 65_537, 1_000_003] {
        let x = random_f32(n, 40 + n as u64);
        let (out, run) = g
            .reverse(&x, tilekit::kernels::reverse::Variant::Block)
            .wait()
            .unwrap();
        let expected: Vec<f32> = x.iter().rev().cloned().collect();
        assert!(
            out.iter()
                .zip(&expected)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "n={n}"
        );
        assert_eq!(out.len(), n);
        assert!(run.gbps() > 0.0);
    }
}
