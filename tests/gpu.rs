//! The foundation on a real adapter: round trips, the 2-D fold, the pipeline cache, adapter errors.

mod common;
use common::{gpu, random_f32, random_u32};
use tilekit::{Error, Gpu, GpuOptions, POISON};

#[test]
fn upload_and_read_back_round_trip_at_odd_sizes() {
    let g = gpu();
    for (i, n) in [1usize, 7, 1_000_003].into_iter().enumerate() {
        let f = random_f32(n, i as u64);
        let buf = g.upload("round trip f32", &f).unwrap();
        assert_eq!(g.read(&buf).unwrap(), f, "f32 n={n}");
        let u = random_u32(n, 100 + i as u64);
        let buf = g.upload("round trip u32", &u).unwrap();
        assert_eq!(g.read(&buf).unwrap(), u, "u32 n={n}");
    }
}

#[test]
fn poison_overwrites_every_word() {
    let g = gpu();
    let buf = g.upload("data", &random_u32(1001, 3)).unwrap();
    g.poison(&buf).unwrap();
    assert!(g.read(&buf).unwrap().iter().all(|&w| w == POISON));
    let fresh = g.alloc::<f32>("fresh", 33).unwrap();
    assert!(g
        .read(&fresh)
        .unwrap()
        .iter()
        .all(|x| x.to_bits() == POISON && x.is_nan()));
}

#[test]
fn a_launch_over_65535_workgroups_folds_into_2d_and_writes_every_element() {
    let g = gpu();
    // 70,000 workgroups of 256 invocations, plus a ragged tail.
    let n = 70_000 * 256 + 77;
    let buf = g.alloc::<u32>("iota", n).unwrap();
    let words = n as u32;
    let count = words.div_ceil(256);
    assert!(
        count > g.limits().max_compute_workgroups_per_dimension,
        "the test must exceed one dimension"
    );
    g.fill_words(buf.bind(), words, 5, "iota").unwrap();
    let out = g.read(&buf).unwrap();
    for (i, &w) in out.iter().enumerate() {
        assert_eq!(w, 5 + i as u32, "element {i}");
    }
}

#[test]
fn the_pipeline_cache_reuses_and_distinguishes_constants() {
    use tilekit::Shader;
    let g = gpu();
    let shader = Shader::file("fill", include_str!("../shaders/fill.wgsl"));
    let c64 = [("WG".to_string(), 64.0)];
    let c128 = [("WG".to_string(), 128.0)];
    let a = g.pipeline(&shader, "fill", &c64).unwrap();
    let b = g.pipeline(&shader, "fill", &c64).unwrap();
    let c = g.pipeline(&shader, "fill", &c128).unwrap();
    let d = g.pipeline(&shader, "iota", &c64).unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert!(!std::sync::Arc::ptr_eq(&a, &c));
    assert!(!std::sync::Arc::ptr_eq(&a, &d));
}

#[test]
fn a_nonexistent_adapter_is_a_typed_error() {
    let e = Gpu::with_options(GpuOptions {
        adapter: Some("no-such-adapter-xyz".into()),
        ..Default::default()
    })
    .unwrap_err();
    match &e {
        Error::AdapterNotFound { wanted, available } => {
            assert_eq!(wanted, "no-such-adapter-xyz");
            assert!(!available.is_empty());
        }
        other => panic!("expected AdapterNotFound, got {other:?}"),
    }
    assert!(e.to_string().contains("no-such-adapter-xyz"));
}

#[test]
fn zero_and_oversized_buffers_are_typed_errors() {
    let g = gpu();
    assert!(matches!(
        g.upload::<f32>("empty", &[]),
        Err(Error::ZeroSize { .. })
    ));
    let too_many = (g.limits().max_storage_buffer_binding_size / 4 + 1) as usize;
    match g.check_buffer::<f32>("huge", too_many) {
        Err(Error::BufferTooLarge {
            limit_name,
            bytes,
            limit,
            ..
        }) => {
            assert_eq!(limit_name, "max_storage_buffer_binding_size");
            assert!(bytes > limit);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_device_has_the_adapters_own_limits_and_a_clock() {
    let g = gpu();
    // lavapipe and every real GPU offer more than WebGPU's 16 KiB baseline.
    assert!(g.limits().max_compute_workgroup_storage_size >= 16_384);
    let t = g
        .fill_words(g.alloc::<u32>("t", 1024).unwrap().bind(), 1024, 1, "fill")
        .unwrap();
    assert!(t.seconds > 0.0 && t.seconds.is_finite(), "{t:?}");
}
