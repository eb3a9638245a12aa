//! Histograms on a real adapter, exact against the CPU count.

mod common;
use common::{gpu, random_u32};
use tilekit::kernels::histogram::Variant;

fn count(bins: impl Iterator<Item = usize>) -> [u32; 256] {
    let mut h = [0u32; 256];
    bins.for_each(|b| h[b] += 1);
    h
}

#[test]
fn u8_and_u32_data_both_variants() {
    let g = gpu();
    for n in [1usize, 3, 255, 1001, 100_003] {
        // Skewed data: many values in a few bins, so atomics contend.
        let raw = random_u32(n, n as u64);
        let bytes: Vec<u8> = raw
            .iter()
            .map(|v| if v % 3 == 0 { 7 } else { (*v >> 8) as u8 })
            .collect();
        let expected = count(bytes.iter().map(|b| *b as usize));
        for v in Variant::ALL {
            assert_eq!(
                g.histogram(&bytes, v).wait().unwrap().0,
                expected,
                "u8 {v:?} n={n}"
            );
            let expected32 = count(raw.iter().map(|x| (*x & 0xff) as usize));
            assert_eq!(
                g.histogram(&raw, v).wait().unwrap().0,
                expected32,
                "u32 {v:?} n={n}"
            );
        }
    }
    assert!(g.histogram::<u8>(&[], Variant::Global).wait().is_err());
}
