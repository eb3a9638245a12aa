//! Transpose on a real adapter: every variant and tile, shapes that are not tile multiples.

mod common;
use common::{gpu, random_f32};
use tilekit::kernels::transpose::Variant;

#[test]
fn every_variant_and_tile_on_odd_shapes() {
    let g = gpu();
    for &(m, n) in &[
        (1usize, 1usize),
        (1, 77),
        (77, 1),
        (33, 65),
        (100, 37),
        (256, 256),
    ] {
        let x = random_f32(m * n, (m * 1000 + n) as u64);
        for v in Variant::ALL {
            for tile in [8, 16, 32] {
                let r = g.transpose(&x, m, n, v, Some(tile)).wait();
                let Ok((out, _)) = r else {
                    // Only a tile the adapter cannot hold may fail, with a typed error.
                    assert!(
                        matches!(r, Err(tilekit::Error::TileTooLarge { .. })),
                        "{r:?}"
                    );
                    continue;
                };
                for i in 0..m {
                    for j in 0..n {
                        assert_eq!(
                            out[j * m + i].to_bits(),
                            x[i * n + j].to_bits(),
                            "{v:?} {tile} {m}x{n} at ({i},{j})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn shape_errors() {
    let g = gpu();
    let (a, b) = (
        g.upload("a", &[1.0f32; 6]).wait().unwrap(),
        g.alloc::<f32>("b", 5).wait().unwrap(),
    );
    assert!(g
        .transpose_on_device(&a, &b, (2, 3), Variant::Tiled, None)
        .wait()
        .is_err());
    assert!(gpu()
        .transpose(&[1.0; 5], 2, 3, Variant::Padded, None)
        .wait()
        .is_err());
    assert!(gpu()
        .transpose::<f32>(&[], 0, 3, Variant::Padded, None)
        .wait()
        .is_err());
}
