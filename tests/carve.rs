//! Carved workgroup arrays: each part (i32, f32 via bitcast, bytes) checked on its own.

mod common;
use common::{gpu, random_f32, random_i32, random_u32};

#[test]
fn every_part_of_the_pool_is_reversed_intact() {
    let g = gpu();
    for n in [1usize, 3, 64, 100, 256] {
        let ints = random_i32(n, n as u64, i32::MIN, i32::MAX);
        let mut floats = random_f32(n, 7 + n as u64);
        floats[0] = -0.0; // bit patterns survive the bitcasts
        let chars: Vec<u8> = random_u32(4 * n, 9).iter().map(|v| *v as u8).collect();
        let (out, _) = g.carved_reverse(&ints, &floats, &chars).wait().unwrap();
        assert_eq!(
            out.ints,
            ints.iter().rev().cloned().collect::<Vec<_>>(),
            "ints n={n}"
        );
        let rf: Vec<u32> = floats.iter().rev().map(|f| f.to_bits()).collect();
        assert_eq!(
            out.floats.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            rf,
            "floats n={n}"
        );
        assert_eq!(
            out.chars,
            chars.iter().rev().cloned().collect::<Vec<_>>(),
            "chars n={n}"
        );
    }
}

#[test]
fn mismatched_parts_are_typed_errors() {
    let g = gpu();
    assert!(g.carved_reverse(&[1, 2], &[1.0], &[0; 8]).wait().is_err());
    assert!(g.carved_reverse(&[1], &[1.0], &[0; 3]).wait().is_err());
    assert!(g.carved_reverse(&[], &[], &[]).wait().is_err());
}
