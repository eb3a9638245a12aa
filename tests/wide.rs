//! Scalar and vec4 copies and sums, exact, at lengths that are not multiples of 4.

mod common;
use common::{gpu, random_u32};
use tilekit::kernels::wide::Width;

#[test]
fn copies_and_sums_at_every_tail_length() {
    let g = gpu();
    for n in [1usize, 2, 3, 4, 5, 1023, 65_537, 1_000_003] {
        let x = random_u32(n, n as u64);
        let sum = x.iter().fold(0u32, |a, b| a.wrapping_add(*b));
        for w in Width::ALL {
            let src = g.upload("x", &x).wait().unwrap();
            let dst = g.alloc::<u32>("copy", n).wait().unwrap();
            let run = g.copy_on_device(&src, &dst, w).wait().unwrap();
            assert_eq!(g.read(&dst).wait().unwrap(), x, "{w:?} copy n={n}");
            assert!(run.gbps() > 0.0);
            assert_eq!(
                g.sum_on_device(&src, w).wait().unwrap().0,
                sum,
                "{w:?} sum n={n}"
            );
        }
    }
}

#[test]
fn copy_length_mismatch_is_an_error() {
    let g = gpu();
    let a = g.upload("a", &[1u32, 2, 3]).wait().unwrap();
    let b = g.alloc::<u32>("b", 2).wait().unwrap();
    assert!(g.copy_on_device(&a, &b, Width::Vec4).wait().is_err());
}
