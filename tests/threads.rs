//! One `Gpu` shared by many threads (it is `Send + Sync`), a long loop that keeps memory flat,
//! and the waits that end in typed errors: a kernel longer than the timeout, a device destroyed
//! mid-run.

mod common;
use common::{gpu, random_f32, random_u32};
use std::sync::Arc;
use tilekit::kernels::matmul::{reference, verify};
use tilekit::kernels::reduce::Op;
use tilekit::kernels::{histogram, transpose};
use tilekit::{Error, Gpu, GpuOptions};

/// One of five kernels, chosen by `i`, on data from `seed`, checked against the CPU.
fn mixed(g: &Gpu, i: usize, seed: u64) {
    match i % 5 {
        0 => {
            let (m, k, n) = (5 + i % 7, 9 + i % 5, 3 + i % 11);
            let a = random_f32(m * k, seed);
            let b = random_f32(k * n, seed + 1);
            let (c, _) = g
                .matmul(
                    &a,
                    &b,
                    (m, k, n),
                    &tilekit::kernels::matmul::Selection::Auto,
                )
                .wait()
                .unwrap();
            let (exact, mag) = reference(&a, &b, m, k, n);
            verify(&c, &exact, &mag, k).unwrap();
        }
        1 => {
            let x: Vec<u32> = random_u32(1000 + i, seed);
            let s: u32 = g.reduce(&x, Op::Sum).wait().unwrap();
            assert_eq!(s, x.iter().fold(0u32, |a, &v| a.wrapping_add(v)));
        }
        2 => {
            let x = random_u32(777 + i, seed);
            let (y, _) = g
                .reverse(&x, tilekit::kernels::reverse::Variant::Block)
                .wait()
                .unwrap();
            assert!(y.iter().eq(x.iter().rev()));
        }
        3 => {
            let (r, c) = (3 + i % 13, 5 + i % 17);
            let x = random_u32(r * c, seed);
            let (y, _) = g
                .transpose(&x, r, c, transpose::Variant::Padded, None)
                .wait()
                .unwrap();
            for (idx, v) in x.iter().enumerate() {
                assert_eq!(y[(idx % c) * r + idx / c], *v);
            }
        }
        _ => {
            let x = random_u32(2000 + i, seed);
            let (h, _) = g
                .histogram(&x, histogram::Variant::Workgroup)
                .wait()
                .unwrap();
            let mut want = [0u32; 256];
            x.iter().for_each(|&v| want[(v & 255) as usize] += 1);
            assert_eq!(h, want);
        }
    }
}

#[test]
fn eight_threads_share_one_gpu() {
    let g = gpu();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            s.spawn(move || {
                for i in 0..200usize {
                    mixed(g, i + t as usize, 1000 * t + i as u64);
                }
            });
        }
    });
}

/// Queued products from four threads (`Gpu::matmul_queue`: each thread's chain of five, C of one
/// the A of the next, then every C read), while four others run calls that wait, whose
/// submissions carry the calls held back: every C checked against the f64 product of its own A,
/// read back. The calls share one held-back submission, one poll and the locks around them.
#[test]
fn queued_chains_and_waited_calls_share_one_gpu() {
    use tilekit::kernels::matmul::{Selection, Shape};
    let g = gpu();
    std::thread::scope(|s| {
        for t in 0..8u64 {
            s.spawn(move || {
                for round in 0..6usize {
                    let seed = 100 * t + 10 * round as u64;
                    if t % 2 == 1 {
                        mixed(g, round + t as usize, seed);
                        continue;
                    }
                    let (m, w) = (3 + round, 17 + t as usize);
                    let x0 = random_f32(m * w, seed);
                    let ws: Vec<Vec<f32>> =
                        (0..5).map(|i| random_f32(w * w, seed + 1 + i)).collect();
                    let mut xs = vec![g.upload("x", &x0).wait().unwrap()];
                    let shape = Shape::new(m, w, w).unwrap();
                    let dws: Vec<_> = ws
                        .iter()
                        .map(|v| g.upload("W", v).wait().unwrap())
                        .collect();
                    for dw in &dws {
                        let next = g.alloc::<f32>("x", m * w).wait().unwrap();
                        g.matmul_queue(xs.last().unwrap(), dw, &next, shape, &Selection::Auto)
                            .wait()
                            .unwrap();
                        xs.push(next);
                    }
                    let mut input = x0;
                    for (i, wi) in ws.iter().enumerate() {
                        let out = g.read(&xs[i + 1]).wait().unwrap();
                        let (exact, mag) = reference(&input, wi, m, w, w);
                        verify(&out, &exact, &mag, w)
                            .unwrap_or_else(|e| panic!("thread {t} round {round} layer {i}: {e}"));
                        input = out;
                    }
                }
            });
        }
    });
}

#[test]
fn three_threads_move_large_buffers_through_the_staging_ring_at_once() {
    // Each upload and read from the ring's sizes takes staging buffers from the one pool the Gpu
    // keeps (src/transfer.rs): threads that do so together must each get their own.
    let g = gpu();
    let words = tilekit::transfer::CHUNKED_UPLOAD as usize / 4 + 123;
    std::thread::scope(|s| {
        for t in 0..3u64 {
            s.spawn(move || {
                for round in 0..2u64 {
                    let x = random_u32(words, 7000 + 10 * t + round);
                    let buf = g.upload("ring", &x).wait().unwrap();
                    let back = g.read(&buf).wait().unwrap();
                    assert!(
                        back == x,
                        "thread {t}, round {round}: the words came back changed"
                    );
                }
            });
        }
    });
}

fn resident_bytes() -> u64 {
    // /proc/self/statm: resident pages are the second field.
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

#[test]
fn two_thousand_calls_keep_memory_flat() {
    let g = gpu();
    for i in 0..200 {
        mixed(g, i, i as u64);
    }
    let before = resident_bytes();
    for i in 0..2000 {
        mixed(g, i, i as u64);
    }
    let after = resident_bytes();
    let s = g.stats();
    assert!(s.buffers <= tilekit::pool::MAX_POOLED_BUFFERS, "{s:?}");
    assert!(s.buffer_bytes <= tilekit::pool::MAX_POOLED_BYTES, "{s:?}");
    assert!(s.staging <= tilekit::pool::MAX_STAGING, "{s:?}");
    assert!(s.uniforms <= tilekit::pool::MAX_UNIFORMS, "{s:?}");
    assert!(s.bind_groups <= tilekit::pool::MAX_BIND_GROUPS, "{s:?}");
    assert!(s.recipes <= tilekit::pool::MAX_RECIPES, "{s:?}");
    // Linux only (statm); elsewhere both read 0. 2,000 calls that leaked one small buffer, bind
    // group or pipeline each would pass 32 MiB.
    let grew = after.saturating_sub(before);
    assert!(
        grew < 32 << 20,
        "resident memory grew by {} MiB over 2,000 calls",
        grew >> 20
    );
}

#[test]
fn a_kernel_longer_than_the_timeout_is_a_typed_error() {
    let g = Gpu::with_options(GpuOptions {
        timeout: Some(std::time::Duration::from_millis(20)),
        ..Default::default()
    })
    .wait()
    .unwrap();
    // The naive kernel at 512³ takes seconds on lavapipe; on a GPU, 8192³ (an H100 ran 2048³ in
    // 3.7 ms, so 8192³ about 240: twelve times the timeout).
    let n = if g.summary.device_type == "Cpu" {
        512
    } else {
        8192
    };
    let a = random_f32(n * n, 1);
    let shape = tilekit::kernels::matmul::Shape::new(n, n, n).unwrap();
    let (da, db) = (
        g.upload("A", &a).wait().unwrap(),
        g.upload("B", &a).wait().unwrap(),
    );
    let dc = g.alloc::<f32>("C", n * n).wait().unwrap();
    let r = g.matmul_on_device(
        &da,
        &db,
        &dc,
        shape,
        &tilekit::kernels::matmul::Selection::Variant(tilekit::kernels::matmul::Variant::NAIVE),
    );
    match r.wait() {
        Err(Error::Timeout { seconds, .. }) => assert!(seconds <= 0.021),
        other => panic!("expected a timeout, got {other:?}"),
    }
}

#[test]
fn a_destroyed_device_is_a_typed_error_not_a_hang() {
    let g = Arc::new(Gpu::with_options(GpuOptions::default()).wait().unwrap());
    let x = random_u32(100_000, 3);
    let s: u32 = g.reduce(&x, Op::Sum).wait().unwrap();
    assert_eq!(s, x.iter().fold(0u32, |a, &v| a.wrapping_add(v)));
    let big = random_u32(tilekit::transfer::CHUNKED_UPLOAD as usize / 4, 4);
    let kept = g.upload("kept", &big).wait().unwrap();
    g.wgpu().0.destroy();
    match g.reduce(&x, Op::Sum).wait() {
        Err(Error::DeviceLost { reason }) => assert!(!reason.is_empty()),
        other => panic!("expected DeviceLost, got {other:?}"),
    }
    // The chunked transfers (src/transfer.rs) end the same way.
    match g.upload("after", &big).wait() {
        Err(Error::DeviceLost { reason }) => assert!(!reason.is_empty()),
        other => panic!(
            "expected DeviceLost from a chunked upload, got {:?}",
            other.err()
        ),
    }
    match g.read(&kept).wait() {
        Err(Error::DeviceLost { reason }) => assert!(!reason.is_empty()),
        other => panic!(
            "expected DeviceLost from a chunked read, got {:?}",
            other.err()
        ),
    }
}
