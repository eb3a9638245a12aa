//! Times the f16 small-M matmuls whose speed drew per process (1×11008×4096, 1×1600×50257) on
//! COPIES fresh allocations of B in one process, in three rounds taking turns, with the
//! library's own measurement (medians after warm-up, GPU timestamps). If the draw follows the
//! buffer, the copies of one process differ; if it follows the process, they agree. Then, as
//! the bench does before them, large f16 products on buffers made and dropped (HEAVY of them,
//! default 4): and the small-M shapes again, on the same copies and on new ones.
//!
//! The other modes, each chosen by an environment variable: CEILINGS (the bench's ceilings
//! first), FLOW (the bench's own harness, after a PRELUDE: the f32 operands the filtered bench
//! made, or an idle stretch; FLOW=trajectory times the call by 0.25 s from its first run),
//! SWEEP (copies per submission). `scripts/device/smallm.sh` runs them in fresh processes; what
//! they found is in BENCHMARKS.md, "Warm up by time".
use half::f16;
use tilekit::kernels::matmul::{Selection, Shape};
use tilekit::{Gpu, Repeat};

fn main() {
    let copies: usize = std::env::var("COPIES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(6);
    let gpu = Gpu::new().wait().expect("a GPU");
    println!("adapter: {}", gpu.summary.name);
    // The bench's ceilings first, as `tilekit bench` runs them before any case: copy, fma,
    // matrix (CEILINGS=all), or one of them.
    if let Ok(which) = std::env::var("CEILINGS") {
        ceilings(&gpu, &which);
        for (m, k, n) in [(1usize, 11008usize, 4096usize), (1, 1600, 50257)] {
            small_m(
                &gpu,
                m,
                k,
                n,
                copies,
                &format!("after the ceilings ({which})"),
                None,
            );
        }
        return;
    }
    // The bench's own harness (cli/src/bench/case.rs) around the same call: FLOW=bench, or
    // bench-noread (the first call's result not read back), or library (Gpu::measure).
    if let Ok(flow) = std::env::var("FLOW") {
        ceilings(&gpu, "all");
        // PRELUDE: what `bench --filter matmul-unseen/f16/...` does between the ceilings and
        // the first f16 case: the f32 unseen shapes' operands made and dropped (`churn`), the
        // same buffers allocated without data (`alloc`), or the GPU left idle as long (`idle:S`).
        match std::env::var("PRELUDE").as_deref() {
            Ok("churn") => churn(&gpu, true),
            Ok("alloc") => churn(&gpu, false),
            Ok(idle) if idle.starts_with("idle:") => std::thread::sleep(
                std::time::Duration::from_secs_f64(idle[5..].parse().unwrap()),
            ),
            _ => {}
        }
        for (m, k, n) in [(1usize, 11008usize, 4096usize), (1, 1600, 50257)] {
            if flow == "trajectory" {
                trajectory(&gpu, m, k, n);
            } else {
                flows(&gpu, m, k, n, &flow);
            }
        }
        return;
    }
    if std::env::var_os("SWEEP").is_some() {
        sweep(&gpu);
        return;
    }
    let heavy: usize = std::env::var("HEAVY")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(4);
    let mut kept = Vec::new();
    for (m, k, n) in [(1usize, 11008usize, 4096usize), (1, 1600, 50257)] {
        kept.push(small_m(&gpu, m, k, n, copies, "fresh process", None));
    }
    // The bench's big unseen shapes, each on buffers of its own, dropped after.
    for (m, k, n) in [
        (4096usize, 4096usize, 11008usize),
        (2048, 8192, 2048),
        (8192, 8192, 128),
        (3000, 5001, 701),
    ]
    .into_iter()
    .take(heavy)
    {
        let shape = Shape::new(m, k, n).unwrap();
        let a = gpu.alloc::<f16>("big A", m * k).wait().unwrap();
        let b = gpu.alloc::<f16>("big B", k * n).wait().unwrap();
        let c = gpu.alloc::<f16>("big C", m * n).wait().unwrap();
        let t = gpu
            .measure(
                Repeat::BackToBack,
                async || {
                    gpu.matmul_on_device(&a, &b, &c, shape, &Selection::Auto)
                        .await
                },
                |r| r.timing.seconds,
            )
            .wait()
            .unwrap();
        println!("{m}x{k}x{n}: {:.1} µs (then dropped)", t.median * 1e6);
    }
    for ((m, k, n), old) in [(1usize, 11008usize, 4096usize), (1, 1600, 50257)]
        .into_iter()
        .zip(kept)
    {
        small_m(
            &gpu,
            m,
            k,
            n,
            copies,
            "after the big products, the same copies of B",
            Some(old),
        );
        small_m(
            &gpu,
            m,
            k,
            n,
            copies,
            "after the big products, new copies of B",
            None,
        );
    }
}

type Buffers = (
    tilekit::DeviceBuffer<f16>,
    tilekit::DeviceBuffer<f16>,
    Vec<tilekit::DeviceBuffer<f16>>,
);

/// Times m×k×n on `copies` allocations of B (`reuse`: those of an earlier call), three rounds.
fn small_m(
    gpu: &Gpu,
    m: usize,
    k: usize,
    n: usize,
    copies: usize,
    when: &str,
    reuse: Option<Buffers>,
) -> Buffers {
    {
        let shape = Shape::new(m, k, n).unwrap();
        let (da, dc, bs) = match reuse {
            Some(buffers) => buffers,
            None => {
                let (a, b) = (halves(m * k, 1), halves(k * n, 2));
                let da = gpu.upload("A", &a).wait().unwrap();
                let dc = gpu.alloc::<f16>("C", m * n).wait().unwrap();
                let bs: Vec<_> = (0..copies)
                    .map(|i| gpu.upload(&format!("B{i}"), &b).wait().unwrap())
                    .collect();
                (da, dc, bs)
            }
        };
        let sel = Selection::Auto;
        let mut rows = vec![Vec::new(); copies];
        for _round in 0..3 {
            for (i, db) in bs.iter().enumerate() {
                let t = gpu
                    .measure(
                        Repeat::BackToBack,
                        async || gpu.matmul_on_device(&da, db, &dc, shape, &sel).await,
                        |r| r.timing.seconds,
                    )
                    .wait()
                    .unwrap();
                rows[i].push(t.median * 1e6);
            }
        }
        let plan = gpu
            .matmul_on_device(&da, &bs[0], &dc, shape, &sel)
            .wait()
            .unwrap();
        println!("{m}x{k}x{n} ({}), {when}:", plan.tile);
        for (i, r) in rows.iter().enumerate() {
            println!(
                "  B{i}: {}",
                r.iter()
                    .map(|x| format!("{x:.1}"))
                    .collect::<Vec<_>>()
                    .join(" / ")
            );
        }
        (da, dc, bs)
    }
}

/// The bench times back-to-back copies of a call in one submission, as many as fit about a
/// millisecond after the first call: per-copy time against the number of copies, each count
/// warmed up for 0.3 s and then timed 9 times (median).
fn sweep(gpu: &Gpu) {
    for (m, k, n) in [(1usize, 11008usize, 4096usize), (1, 1600, 50257)] {
        let shape = Shape::new(m, k, n).unwrap();
        let (a, b) = (halves(m * k, 1), halves(k * n, 2));
        let da = gpu.upload("A", &a).wait().unwrap();
        let db = gpu.upload("B", &b).wait().unwrap();
        let dc = gpu.alloc::<f16>("C", m * n).wait().unwrap();
        let sel = Selection::Auto;
        let mut line = format!("{m}x{k}x{n} per copy, µs, by copies:");
        for copies in [
            1u32, 2, 4, 8, 10, 11, 12, 13, 14, 15, 16, 20, 24, 32, 37, 48, 64,
        ] {
            let t = tilekit::measure::with_copies(gpu, copies, || {
                let start = std::time::Instant::now();
                while start.elapsed().as_secs_f64() < 0.3 {
                    gpu.matmul_on_device(&da, &db, &dc, shape, &sel)
                        .wait()
                        .unwrap();
                }
                let mut v: Vec<f64> = (0..9)
                    .map(|_| {
                        gpu.matmul_on_device(&da, &db, &dc, shape, &sel)
                            .wait()
                            .unwrap()
                            .timing
                            .seconds
                    })
                    .collect();
                v.sort_by(f64::total_cmp);
                v[4]
            });
            line += &format!(" {copies}:{:.1}", t * 1e6);
        }
        println!("{line}");
    }
}

fn ceilings(gpu: &Gpu, which: &str) {
    let t = |m: tilekit::Measured<f64>| m.median * 1e6;
    if which == "all" || which == "copy" {
        let words = (1usize << 28).min((gpu.limits().max_binding_bytes() / 4) as usize);
        let mut rng = tilekit::random::Rng::new(17);
        let data: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
        let src = gpu.upload("ceiling source", &data).wait().unwrap();
        drop(data);
        let dst = gpu
            .alloc::<u32>("ceiling destination", words)
            .wait()
            .unwrap();
        let m = gpu
            .measure(
                Repeat::Each,
                async || {
                    gpu.copy_on_device(&src, &dst, tilekit::kernels::wide::Width::Vec4)
                        .await
                        .map(|r| r.timing.seconds)
                },
                |s| *s,
            )
            .wait()
            .unwrap();
        println!("copy ceiling: {:.1} µs for {} MiB", t(m), (words * 4) >> 20);
    }
    if which == "all" || which == "fma" {
        let (iters, groups) = (4096u32, 132 * 64u32);
        let sink = gpu
            .alloc::<f32>("fma sink", groups as usize * 256)
            .wait()
            .unwrap();
        let m = gpu
            .measure(
                Repeat::Each,
                async || {
                    tilekit::ceiling::fma(gpu, &sink, groups, iters)
                        .await
                        .map(|r| r.seconds)
                },
                |s| *s,
            )
            .wait()
            .unwrap();
        println!("fma ceiling: {:.1} µs", t(m));
    }
    if which == "all" || which == "matrix" {
        let (iters, groups) = (4096u32, 132 * 4u32);
        if let Ok(len) = tilekit::ceiling::matrix_sink_len(gpu, groups) {
            let sink = gpu.alloc::<f32>("matrix sink", len).wait().unwrap();
            let m = gpu
                .measure(
                    Repeat::Each,
                    async || {
                        tilekit::ceiling::matrix(gpu, &sink, groups, iters)
                            .await
                            .map(|r| r.seconds)
                    },
                    |s| *s,
                )
                .wait()
                .unwrap();
            println!("matrix ceiling: {:.1} µs", t(m));
        }
    }
}

fn flows(gpu: &Gpu, m: usize, k: usize, n: usize, flow: &str) {
    let shape = Shape::new(m, k, n).unwrap();
    let (a, b, da, db, dc) = operands(gpu, m, k, n);
    let sel = Selection::Auto;
    let call = || {
        gpu.matmul_on_device(&da, &db, &dc, shape, &sel)
            .wait()
            .unwrap()
            .timing
            .seconds
    };
    let median = if flow == "library" {
        gpu.measure(
            Repeat::BackToBack,
            async || gpu.matmul_on_device(&da, &db, &dc, shape, &sel).await,
            |r| r.timing.seconds,
        )
        .wait()
        .unwrap()
        .median
    } else {
        let before = tilekit::measure::warm_up_seconds(gpu);
        let once = call();
        if flow == "bench" {
            let c = gpu.read(&dc).wait().unwrap();
            std::hint::black_box(c);
        }
        let copies = tilekit::measure::copies_after(gpu, once);
        let warm_up = before.max(tilekit::measure::warm_up_seconds(gpu));
        // Every run's time and when it ended, from the first call on (LOG=1 prints them by
        // 100 ms).
        let t0 = std::time::Instant::now();
        let mut log: Vec<(f64, f64)> = Vec::new();
        let mut times = tilekit::measure::with_copies(gpu, copies, || {
            let start = std::time::Instant::now();
            let mut runs = 1;
            while runs < 3 || start.elapsed().as_secs_f64() < warm_up {
                let t = call();
                log.push((t0.elapsed().as_secs_f64(), t));
                runs += 1;
            }
            (0..10)
                .map(|_| {
                    let t = call();
                    log.push((t0.elapsed().as_secs_f64(), t));
                    t
                })
                .collect::<Vec<f64>>()
        });
        if std::env::var_os("LOG").is_some() {
            let end = log.last().map_or(0.0, |l| l.0);
            let mut line = format!("{m}x{k}x{n} {flow} log ({copies} copies, warm-up {warm_up} s, first call {:.1} µs), µs per 0.1 s:", once * 1e6);
            for i in 0..=((end / 0.1) as usize) {
                let mut v: Vec<f64> = log
                    .iter()
                    .filter(|s| (s.0 / 0.1) as usize == i)
                    .map(|s| s.1)
                    .collect();
                v.sort_by(f64::total_cmp);
                line += &v
                    .get(v.len() / 2)
                    .map_or(" -".to_string(), |x| format!(" {:.1}", x * 1e6));
            }
            println!("{line}");
        }
        times.sort_by(f64::total_cmp);
        times[5]
    };
    println!("{m}x{k}x{n} {flow}: {:.1} µs", median * 1e6);
    // Then whether a slow figure follows the buffers or the process: the library's measurement
    // on the same buffers, on a fresh copy of B, and on fresh A and C with the first B.
    let lib = |da: &tilekit::DeviceBuffer<f16>,
               db: &tilekit::DeviceBuffer<f16>,
               dc: &tilekit::DeviceBuffer<f16>| {
        gpu.measure(
            Repeat::BackToBack,
            async || gpu.matmul_on_device(da, db, dc, shape, &sel).await,
            |r| r.timing.seconds,
        )
        .wait()
        .unwrap()
        .median
            * 1e6
    };
    let same = lib(&da, &db, &dc);
    let db2 = gpu.upload("B again", &b).wait().unwrap();
    let fresh_b = lib(&da, &db2, &dc);
    let da2 = gpu.upload("A again", &a).wait().unwrap();
    let dc2 = gpu.alloc::<f16>("C again", m * n).wait().unwrap();
    let fresh_ac = lib(&da2, &db, &dc2);
    let again = lib(&da, &db, &dc);
    println!("  then: same {same:.1}, fresh B {fresh_b:.1}, fresh A and C {fresh_ac:.1}, same again {again:.1} µs");
}

/// The f32 unseen shapes' operands (`UNSEEN` of `cli/src/bench/matmul.rs`, private to the
/// command), made and dropped as `bench` made them before its filter skipped them when it names
/// one f16 case (`data`: random values uploaded; else buffers allocated only).
fn churn(gpu: &Gpu, data: bool) {
    let start = std::time::Instant::now();
    for (m, k, n) in [
        (1usize, 11008usize, 4096usize),
        (1, 1600, 50257),
        (4, 14336, 4096),
        (32, 4096, 11008),
        (64, 11008, 4096),
        (8192, 8192, 128),
        (777, 1234, 2345),
        (2048, 8192, 2048),
        (4096, 4096, 11008),
        (1000, 1001, 1003),
        (3000, 5001, 701),
    ] {
        let made = if data {
            let (a, b) = (
                tilekit::random::uniform_f32(m * k, 3),
                tilekit::random::uniform_f32(k * n, 4),
            );
            (gpu.upload("A", &a).wait(), gpu.upload("B", &b).wait())
        } else {
            (
                gpu.alloc::<f32>("A", m * k).wait(),
                gpu.alloc::<f32>("B", k * n).wait(),
            )
        };
        let dc = gpu.alloc::<f32>("C", m * n).wait();
        if let (Ok(da), Ok(db), Ok(dc)) = (&made.0, &made.1, &dc) {
            std::hint::black_box((da, db, dc));
        } else {
            println!("prelude: {m}x{k}x{n} does not fit this adapter");
        }
    }
    println!(
        "prelude ({}): {:.1} s",
        if data { "churn" } else { "alloc" },
        start.elapsed().as_secs_f64()
    );
}

/// FLOW=trajectory: the call timed back to back for SECONDS (default 5) from the first run on,
/// as the bench's copies per submission; the median per-copy time of each 250 ms, with the Unix
/// time of the start to line up with `nvidia-smi`'s samples.
fn trajectory(gpu: &Gpu, m: usize, k: usize, n: usize) {
    let seconds: f64 = std::env::var("SECONDS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(5.0);
    let shape = Shape::new(m, k, n).unwrap();
    let (_, _, da, db, dc) = operands(gpu, m, k, n);
    let sel = Selection::Auto;
    let call = || {
        gpu.matmul_on_device(&da, &db, &dc, shape, &sel)
            .wait()
            .unwrap()
            .timing
            .seconds
    };
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let start = std::time::Instant::now();
    let once = call();
    // READ=1: C read back after the first call, as the bench verifies it.
    if std::env::var_os("READ").is_some() {
        std::hint::black_box(gpu.read(&dc).wait().unwrap());
    }
    let copies = tilekit::measure::copies_after(gpu, once);
    let mut samples: Vec<(f64, f64)> = Vec::new();
    tilekit::measure::with_copies(gpu, copies, || {
        while start.elapsed().as_secs_f64() < seconds {
            let t = call();
            samples.push((start.elapsed().as_secs_f64(), t));
        }
    });
    let bucket: f64 = std::env::var("BUCKET")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0.25);
    let mut line =
        format!("{m}x{k}x{n} trajectory from {unix:.2} ({copies} copies), µs per {bucket} s:");
    let buckets = (seconds / bucket).ceil() as usize;
    for i in 0..buckets {
        let mut v: Vec<f64> = samples
            .iter()
            .filter(|s| (s.0 / bucket) as usize == i)
            .map(|s| s.1)
            .collect();
        if v.is_empty() {
            line += " -";
            continue;
        }
        v.sort_by(f64::total_cmp);
        line += &format!(" {:.1}", v[v.len() / 2] * 1e6);
    }
    println!("{line}");
}

/// n random f16 values in [-1, 1) from `seed`.
fn halves(n: usize, seed: u64) -> Vec<f16> {
    tilekit::random::uniform_f32(n, seed)
        .iter()
        .map(|x| f16::from_f32(*x))
        .collect()
}

type F16 = tilekit::DeviceBuffer<f16>;

/// The bench's f16 operands of an m×k×n product (its seeds, 7 and 8), uploaded, and a C.
fn operands(gpu: &Gpu, m: usize, k: usize, n: usize) -> (Vec<f16>, Vec<f16>, F16, F16, F16) {
    let (a, b) = (halves(m * k, 7), halves(k * n, 8));
    let da = gpu.upload("A", &a).wait().unwrap();
    let db = gpu.upload("B", &b).wait().unwrap();
    let dc = gpu.alloc::<f16>("C", m * n).wait().unwrap();
    (a, b, da, db, dc)
}
