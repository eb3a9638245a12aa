//! The foundation on a real adapter: round trips, the 2-D fold, the pipeline cache, adapter errors.

mod common;
use common::{gpu, random_f32, random_u32};
use tilekit::{Error, Gpu, GpuOptions, POISON};

#[test]
fn upload_and_read_back_round_trip_at_odd_sizes() {
    let g = gpu();
    for (i, n) in [1usize, 7, 1_000_003].into_iter().enumerate() {
        let f = random_f32(n, i as u64);
        let buf = g.upload("round trip f32", &f).wait().unwrap();
        assert_eq!(g.read(&buf).wait().unwrap(), f, "f32 n={n}");
        let u = random_u32(n, 100 + i as u64);
        let buf = g.upload("round trip u32", &u).wait().unwrap();
        assert_eq!(g.read(&buf).wait().unwrap(), u, "u32 n={n}");
    }
}

#[test]
fn uploads_and_reads_of_many_chunks_round_trip_exactly() {
    // Past the size from which uploads go through the staging ring (RING buffers of CHUNK bytes),
    // so that each buffer is reused, with a last chunk of a few words; and an odd count of f16,
    // whose last chunk ends mid-word.
    use tilekit::transfer::{CHUNK, CHUNKED_UPLOAD, RING};
    let g = gpu();
    let words = (CHUNKED_UPLOAD + CHUNK) as usize / 4 + 1001;
    assert!(words * 4 > RING * CHUNK as usize);
    let u = random_u32(words, 17);
    let buf = g.upload("many chunks u32", &u).wait().unwrap();
    let back = g.read(&buf).wait().unwrap();
    assert_eq!(back.len(), u.len());
    let first_wrong = back.iter().zip(&u).position(|(x, y)| x != y);
    assert_eq!(first_wrong, None, "u32 of {words} words");
    let halves: Vec<half::f16> = random_f32(CHUNKED_UPLOAD as usize / 2 + 7, 18)
        .into_iter()
        .map(half::f16::from_f32)
        .collect();
    let buf = g.upload("many chunks f16", &halves).wait().unwrap();
    let back = g.read(&buf).wait().unwrap();
    assert!(
        back.len() == halves.len()
            && back
                .iter()
                .zip(&halves)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
        "f16 of {} halves",
        halves.len()
    );
}

#[test]
fn poison_overwrites_every_word() {
    let g = gpu();
    let buf = g.upload("data", &random_u32(1001, 3)).wait().unwrap();
    g.fill(&buf, tilekit::POISON).wait().unwrap();
    assert!(g.read(&buf).wait().unwrap().iter().all(|&w| w == POISON));
    let fresh = g.alloc::<f32>("fresh", 33).wait().unwrap();
    assert!(g
        .read(&fresh)
        .wait()
        .unwrap()
        .iter()
        .all(|x| x.to_bits() == POISON && x.is_nan()));
}

#[test]
fn a_launch_over_65535_workgroups_folds_into_2d_and_writes_every_element() {
    let g = gpu();
    // The block reverse launches one workgroup per block: over 65,535 blocks of 256 (the
    // planner's workgroup here), plus a ragged tail, each element distinct.
    let n = 70_000 * 256 + 77;
    let x: Vec<u32> = (0..n as u32).collect();
    let (dx, dy) = (
        g.upload("x", &x).wait().unwrap(),
        g.alloc::<u32>("y", n).wait().unwrap(),
    );
    let run = g.reverse_on_device(&dx, &dy).wait().unwrap();
    let plan = run.plan.as_ref().unwrap();
    let wg = plan.constant("WG") as u64;
    assert!(
        (n as u64).div_ceil(wg) > g.limits().max_compute_workgroups_per_dimension as u64,
        "the test must exceed one dimension ({wg} per workgroup)"
    );
    let out = g.read(&dy).wait().unwrap();
    for (i, &w) in out.iter().enumerate() {
        assert_eq!(w as usize, n - 1 - i, "element {i}");
    }
}

#[test]
fn the_pipeline_cache_reuses_and_distinguishes_constants() {
    // A Gpu of its own: the shared one's cache grows as the other tests run beside this one (on
    // an H100 one did between two of these counts).
    let g = &Gpu::new().wait().unwrap();
    let d64: Vec<u32> = (0..64).collect();
    let d96: Vec<u32> = (0..96).collect();
    g.reverse(&d64, tilekit::kernels::reverse::Variant::Dynamic)
        .wait()
        .unwrap();
    let after_first = g.stats().pipelines;
    // The same override constant: the same pipeline.
    g.reverse(&d64, tilekit::kernels::reverse::Variant::Dynamic)
        .wait()
        .unwrap();
    assert_eq!(g.stats().pipelines, after_first);
    // Another value of the constant: another pipeline of the same shader.
    g.reverse(&d96, tilekit::kernels::reverse::Variant::Dynamic)
        .wait()
        .unwrap();
    assert_eq!(g.stats().pipelines, after_first + 1);
}

#[test]
fn a_nonexistent_adapter_is_a_typed_error() {
    let e = Gpu::with_options(GpuOptions {
        adapter: Some("no-such-adapter-xyz".into()),
        ..Default::default()
    })
    .wait()
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
        g.upload::<f32>("empty", &[]).wait(),
        Err(Error::ZeroSize { .. })
    ));
    let too_many = (g.limits().max_storage_buffer_binding_size / 4 + 1) as usize;
    match g.limits().check_buffer::<f32>("huge", too_many) {
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
    let d: Vec<u32> = (0..1024).collect();
    let t = g
        .reverse(&d, tilekit::kernels::reverse::Variant::Block)
        .wait()
        .unwrap()
        .1
        .timing;
    assert!(t.seconds > 0.0 && t.seconds.is_finite(), "{t:?}");
}

/// `Gpu::with_copies`: a timed submission holds the copies in force. A histogram, whose bins
/// accumulate, counts every value three times under three copies and once outside; a matmul,
/// which overwrites C, gives the same bits either way and matches the f64 reference.
#[test]
fn a_timed_submission_runs_its_launches_once_per_copy() {
    use tilekit::kernels::histogram::Variant as Histogram;
    use tilekit::kernels::matmul::{reference, verify, Selection, Shape};
    let g = gpu();
    let data: Vec<u8> = random_u32(10_007, 11).iter().map(|&v| v as u8).collect();
    let mut expected = [0u32; 256];
    for &v in &data {
        expected[v as usize] += 1;
    }
    let (once, run) = g.histogram(&data, Histogram::Global).wait().unwrap();
    assert_eq!(
        run.timing.clock,
        tilekit::Clock::GpuTimestamp,
        "the copies apply to timed submissions: this adapter needs timestamps"
    );
    assert_eq!(once, expected);
    let thrice = tilekit::measure::with_copies(g, 3, || {
        g.histogram(&data, Histogram::Global).wait().unwrap().0
    });
    assert_eq!(thrice, expected.map(|c| 3 * c));
    let again = g.histogram(&data, Histogram::Global).wait().unwrap().0;
    assert_eq!(again, expected, "one copy again outside");

    let (m, k, n) = (33, 47, 29);
    let (a, b) = (random_f32(m * k, 1), random_f32(k * n, 2));
    let shape = Shape::new(m, k, n).unwrap();
    let (da, db) = (
        g.upload("A", &a).wait().unwrap(),
        g.upload("B", &b).wait().unwrap(),
    );
    let (c1, c4) = (
        g.alloc::<f32>("C", m * n).wait().unwrap(),
        g.alloc::<f32>("C", m * n).wait().unwrap(),
    );
    g.matmul_on_device(&da, &db, &c1, shape, &Selection::Auto)
        .wait()
        .unwrap();
    tilekit::measure::with_copies(g, 4, || {
        g.matmul_on_device(&da, &db, &c4, shape, &Selection::Auto)
            .wait()
            .unwrap()
    });
    let (single, four) = (g.read(&c1).wait().unwrap(), g.read(&c4).wait().unwrap());
    assert!(single
        .iter()
        .zip(&four)
        .all(|(x, y)| x.to_bits() == y.to_bits()));
    let (exact, magnitude) = reference(&a, &b, m, k, n);
    verify(&four, &exact, &magnitude, k).unwrap();
}

/// A call that wants the answer (`Gpu::matmul_read`, `Gpu::reduce`) takes no timestamps: their
/// resolve, copy and second mapping are a large part of a small call (BENCHMARKS.md, "The
/// per-call tax"). The run's figures (`Gpu::matmul` on host slices, which the command line
/// prints) keep them where the adapter has them. C is checked against the f64 reference either
/// way.
#[test]
fn calls_for_the_answer_take_no_timestamps() {
    use tilekit::kernels::matmul::{reference, verify, Selection, Shape};
    use tilekit::Clock;
    gpu(); // the tests' environment (no user's tuning cache)
    let g = Gpu::with_options(GpuOptions {
        poison_outputs: true,
        ..Default::default()
    })
    .wait()
    .unwrap();
    let (m, k, n) = (37, 29, 41);
    let a = random_f32(m * k, 61);
    let b = random_f32(k * n, 62);
    let (exact, mag) = reference(&a, &b, m, k, n);
    let shape = Shape::new(m, k, n).unwrap();
    let (da, db) = (
        g.upload("A", &a).wait().unwrap(),
        g.upload("B", &b).wait().unwrap(),
    );
    let dc = g.alloc::<f32>("C", m * n).wait().unwrap();
    let (c, run) = g
        .matmul_read(&da, &db, &dc, shape, &Selection::Auto)
        .wait()
        .unwrap();
    verify(&c, &exact, &mag, k).unwrap();
    assert_eq!(run.timing.clock, Clock::WallClock);
    // The sum of C for the answer alone: no timestamps either.
    let sum = g
        .reduce(&dc, tilekit::kernels::reduce::Op::Sum)
        .wait()
        .unwrap();
    let expected: f64 = exact.iter().sum();
    assert!((sum as f64 - expected).abs() <= 1e-3 * expected.abs().max(1.0));
    assert_eq!(g.stats().timers, 0, "a timestamp query set was made");
    if tilekit::Clock::of(&g) == Clock::GpuTimestamp {
        let (c, run) = g
            .matmul(&a, &b, (m, k, n), &Selection::Auto)
            .wait()
            .unwrap();
        verify(&c, &exact, &mag, k).unwrap();
        assert_eq!(run.timing.clock, Clock::GpuTimestamp);
        assert_eq!(g.stats().timers, 1);
    }
}
