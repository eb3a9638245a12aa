//! The teaching tour: each lesson runs its kernels, verifies them against a CPU reference, and
//! reports what the lesson predicts beside what was measured. `examples/NN_*.rs` each wrap one
//! lesson; `tilekit tour` runs them all.

use crate::kernels::{blur, histogram, matmul, reduce, transpose, wide};
use crate::limits::{DeviceProfile, Limits};
use crate::plan::{Kernel, Planner};
use crate::{Gpu, Result};
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde::Serialize;
use std::fmt::Write as _;

/// How big the lessons' inputs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Tiny inputs: seconds on lavapipe (tests, `--quick`).
    Quick,
    /// Inputs that show the effect on a real GPU.
    Full,
}

impl Size {
    /// `Quick` when the program got `--quick` or `TILEKIT_QUICK` is set (the examples use this).
    pub fn from_args() -> Size {
        let quick = std::env::args().any(|a| a == "--quick")
            || std::env::var("TILEKIT_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        if quick {
            Size::Quick
        } else {
            Size::Full
        }
    }

    fn pick<T>(self, quick: T, full: T) -> T {
        match self {
            Size::Quick => quick,
            Size::Full => full,
        }
    }
}

/// What one lesson found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Lesson number and title.
    pub title: String,
    /// The lesson in one paragraph.
    pub explanation: String,
    /// Lines of "prediction | measurement".
    pub lines: Vec<String>,
    /// Every result matched the CPU reference.
    pub verified: bool,
    /// The one number to remember.
    pub key: String,
}

impl Report {
    fn new(title: &str, explanation: &str) -> Report {
        Report {
            title: title.into(),
            explanation: explanation.into(),
            lines: vec![],
            verified: true,
            key: String::new(),
        }
    }
    fn line(&mut self, s: String) {
        self.lines.push(s);
    }
    /// The report as text.
    pub fn render(&self) -> String {
        let mut s = format!("== {} ==\n{}\n", self.title, self.explanation);
        for l in &self.lines {
            let _ = writeln!(s, "  {l}");
        }
        let _ = writeln!(
            s,
            "  verified: {}   key: {}",
            if self.verified { "yes" } else { "NO" },
            self.key
        );
        s
    }
}

fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = StdRng::seed_from_u64(seed);
    (0..n).map(|_| r.random_range(-1.0f32..1.0)).collect()
}

fn cpu_note(gpu: &Gpu) -> &'static str {
    if gpu.is_cpu() {
        " (a CPU adapter: workgroup memory is ordinary RAM and barriers are costly, so the speed-up the lesson predicts belongs to GPUs; the load counts still hold)"
    } else {
        ""
    }
}

/// 01: the device query, as `cudaGetDeviceProperties`.
pub fn device_query(gpu: &Gpu) -> Result<Report> {
    let mut r = Report::new(
        "01 device query",
        "WebGPU exposes per-workgroup limits (CUDA's sharedMemPerBlock, maxThreadsPerBlock); the per-multiprocessor figures come from a device profile.",
    );
    let s = &gpu.summary;
    let l = &gpu.limits();
    r.line(format!(
        "adapter {} ({}, {}, driver {} {})",
        s.name, s.backend, s.device_type, s.driver, s.driver_info
    ));
    r.line(format!(
        "workgroup storage {} B | invocations {} | workgroup size {:?}",
        l.workgroup_storage, l.invocations, l.workgroup_size
    ));
    r.line(format!(
        "workgroups per dimension {} | storage binding {} B | subgroup sizes {:?}",
        l.workgroups_per_dimension, l.storage_binding, l.subgroup_sizes
    ));
    r.line(format!(
        "features: {} | profile: {} ({})",
        s.features.join(", "),
        gpu.profile.name,
        gpu.profile.source
    ));
    r.verified = l.workgroup_storage >= 16_384 && l.invocations >= 256;
    r.key = format!(
        "{} KiB workgroup memory, {} invocations",
        l.workgroup_storage / 1024,
        l.invocations
    );
    Ok(r)
}

/// 02: naive against tiled matrix multiply.
pub fn tiled_matmul(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "02 naive vs tiled matmul (PMPP 4.2-4.6)",
        "The naive kernel reads a row of A and a column of B from global memory for every element of C: one multiply-add per two loads. Tiling stages TILE×TILE tiles in workgroup memory so each loaded value serves TILE multiply-adds.",
    );
    let n = size.pick(96, 2048);
    let a = rand_f32(n * n, 1);
    let b = rand_f32(n * n, 2);
    let (exact, mag) = if size == Size::Quick {
        matmul::reference(&a, &b, n, n, n)
    } else {
        (vec![], vec![])
    };
    let mut naive_time = 0.0;
    let (da, db) = (gpu.upload("A", &a)?, gpu.upload("B", &b)?);
    let dc = gpu.alloc::<f32>("C", n * n)?;
    let shape = matmul::Shape::new(n, n, n)?;
    for v in matmul::Variant::ALL {
        gpu.poison(&dc)?;
        let run = gpu.steady(
            || gpu.matmul_on_device(&da, &db, &dc, shape, v, None),
            |r| r.timing.seconds,
        )?;
        let c = gpu.read(&dc)?;
        let ok = if exact.is_empty() {
            matmul::verify_sampled(&a, &b, &c, (n, n, n), 64).is_ok()
        } else {
            matmul::verify(&c, &exact, &mag, n).is_ok()
        };
        r.verified &= ok;
        if v == matmul::Variant::Naive {
            naive_time = run.timing.seconds;
        }
        r.line(format!(
            "{:<8} {:<16} ratio {:>6.1} FLOP/load (predicted {:>5.1}) | {:>9.3} ms {:>8.1} GFLOP/s | {:.2}x naive",
            v.name(),
            run.tile,
            run.ratio,
            predicted_ratio(&run),
            run.timing.seconds * 1e3,
            run.gflops(),
            naive_time / run.timing.seconds
        ));
        if v == matmul::Variant::Tiled {
            r.key = format!("tiling cuts global loads {:.0}x", run.ratio);
        }
    }
    r.line(format!("{n}³, {}{}", gpu.clock(), cpu_note(gpu)));
    Ok(r)
}

fn predicted_ratio(run: &matmul::MatmulRun) -> f64 {
    match (&run.plan, run.variant) {
        (Some(p), _) => p.choice().reuse,
        (None, _) => 1.0,
    }
}

/// 03: the planner under WebGPU's baseline, this adapter, and the book's device D.
pub fn tile_from_limits(gpu: &Gpu) -> Result<Report> {
    let mut r = Report::new(
        "03 tile size from limits (PMPP 4.7)",
        "Registers and shared memory limit how many threads a multiprocessor holds; a program reads the device's limits and sizes its tiles from them instead of compiling a constant in.",
    );
    let k = Kernel::TiledMatmul {
        m: 4096,
        k: 4096,
        n: 4096,
    };
    for (name, limits, profile) in [
        (
            "WebGPU baseline",
            Limits::webgpu_default(),
            gpu.profile.clone(),
        ),
        ("this adapter", gpu.limits().clone(), gpu.profile.clone()),
        (
            "book device D",
            gpu.limits().clone(),
            DeviceProfile::book_device_d(),
        ),
    ] {
        let plan = Planner::new(limits, profile).plan(k)?;
        r.line(format!(
            "{name:<16} → {}: {}",
            plan.choice().label,
            plan.why
        ));
    }
    let d = DeviceProfile::book_device_d();
    let reg = crate::plan::max_registers_for_full_residency(&d);
    let eleven = crate::plan::residency(
        &d,
        crate::plan::KernelUse {
            invocations: 512,
            workgroup_bytes: 0,
            registers: 11,
        },
    );
    let tile = crate::plan::residency(
        &d,
        crate::plan::KernelUse {
            invocations: 256,
            workgroup_bytes: 2048,
            registers: 10,
        },
    );
    r.line(format!(
        "book: 10 registers for full residency | computed {reg}"
    ));
    r.line(format!(
        "book: 11 registers, 512-thread blocks → 1024 resident | computed {}",
        eleven.resident_invocations
    ));
    r.line(format!(
        "book: 16×16 tiles bind on threads at 6 blocks, 12 KiB used | computed {} on {}, {} KiB",
        tile.workgroups,
        tile.binding.name(),
        tile.workgroup_bytes_used / 1024
    ));
    r.verified = reg == 10
        && eleven.resident_invocations == 1024
        && tile.workgroups == 6
        && tile.workgroup_bytes_used == 12 * 1024;
    let here = gpu.planner().plan(k)?;
    r.key = format!("{} on this adapter", here.choice().label);
    Ok(r)
}

/// 04: reverse, static and dynamic, then a large n.
pub fn reverse(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "04 reverse through workgroup memory (Harris)",
        "staticReverse uses a fixed 64-element array; dynamicReverse sizes it at launch (here: an override constant); a barrier separates the writes from the reads.",
    );
    let input: Vec<i32> = (0..64).collect();
    let (out, _) = gpu.reverse_static(&input)?;
    let ok = out == (0..64).rev().collect::<Vec<_>>();
    r.verified &= ok;
    r.line(format!(
        "static 0..63 → {}..{} (expected 63..0)",
        out[0], out[63]
    ));
    let (out, _) = gpu.reverse_dynamic(&input)?;
    r.verified &= out == (0..64).rev().collect::<Vec<_>>();
    r.line(format!("dynamic N=64 → {}..{}", out[0], out[63]));
    let n = size.pick(100_003, 64 << 20);
    let x: Vec<u32> = (0..n as u32).collect();
    let (dx, dout) = (gpu.upload("x", &x)?, gpu.alloc::<u32>("reversed", n)?);
    let run = gpu.steady(|| gpu.reverse_on_device(&dx, &dout), |r| r.timing.seconds)?;
    let out = gpu.read(&dout)?;
    r.verified &= out
        .iter()
        .enumerate()
        .all(|(i, &v)| v as usize == n - 1 - i);
    r.line(format!(
        "block reverse of {n}: {:.3} ms, {:.1} GB/s ({})",
        run.timing.seconds * 1e3,
        run.gbps(),
        run.tile
    ));
    r.key = format!("{:.1} GB/s", run.gbps());
    Ok(r)
}

/// 05: the reduction progression with the copy ceiling beside it.
pub fn reduction(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "05 reduction (reduceGmem → reduceSmem → unroll4 → dynamic → grid-stride → subgroup)",
        "A tree in global memory pays a global read and write per step; a workgroup-memory tree reads each input once; unrolling adds four loads per invocation before the tree, so fewer workgroups do more each; subgroup operations replace the last steps (WGSL has no warp lock-step, so the lesson's volatile trick is not allowed).",
    );
    let n = size.pick(1 << 20, 64 << 20);
    let x = rand_f32(n, 5);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let bound = ((n as f64).log2().ceil() + 2.0)
        * 2f64.powi(-24)
        * x.iter().map(|v| v.abs() as f64).sum::<f64>();
    let input = gpu.upload("reduce input", &x)?;
    let copy_dst = gpu.alloc::<f32>("copy", n)?;
    let ceiling = gpu.steady(
        || gpu.copy_on_device(&input, &copy_dst, wide::Width::Vec4),
        |r| r.timing.seconds,
    )?;
    r.line(format!("copy ceiling (vec4): {:.1} GB/s", ceiling.gbps()));
    let mut best = 0.0f64;
    for v in reduce::Variant::ALL {
        if v == reduce::Variant::Subgroup && !gpu.has(wgpu::Features::SUBGROUP) {
            r.line("subgroup: skipped, the adapter has no SUBGROUP feature".into());
            continue;
        }
        let (s, run) = gpu.steady(
            || gpu.reduce_on_device(&input, reduce::Op::Sum, v),
            |r| r.1.timing.seconds,
        )?;
        let ok = ((s as f64) - exact).abs() <= bound;
        r.verified &= ok;
        best = best.max(run.gbps());
        r.line(format!(
            "{:<12} {:>9.3} ms {:>8.1} GB/s ({:>3.0}% of copy) {} launch(es) WG={} {}",
            v.name(),
            run.timing.seconds * 1e3,
            run.gbps(),
            100.0 * run.gbps() / ceiling.gbps(),
            run.launches,
            run.workgroup,
            if ok { "ok" } else { "WRONG" }
        ));
    }
    r.line(format!(
        "sum of {n} f32 (error bound {bound:.2e}){}",
        cpu_note(gpu)
    ));
    r.key = format!("best {best:.1} GB/s");
    Ok(r)
}

/// 06: bank conflicts in a transposed tile.
pub fn bank_conflicts(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "06 bank conflicts (transpose, CUDA Handbook 8.1)",
        "Reading a 32×32 tile down a column hits one bank 32 times; padding each row to 33 words puts the column in 32 different banks.",
    );
    let (m, n) = size.pick((300, 200), (8192, 8192));
    let x = rand_f32(m * n, 6);
    let mut times = vec![];
    let (dx, dout) = (gpu.upload("x", &x)?, gpu.alloc::<f32>("transposed", m * n)?);
    for v in transpose::Variant::ALL {
        gpu.poison(&dout)?;
        let run = gpu.steady(
            || gpu.transpose_on_device(&dx, &dout, (m, n), v, None),
            |r| r.timing.seconds,
        )?;
        let out = gpu.read(&dout)?;
        let ok = (0..m).all(|i| (0..n).all(|j| out[j * m + i] == x[i * n + j]));
        r.verified &= ok;
        times.push(run.timing.seconds);
        r.line(format!(
            "{:<7} {:<16} {:>9.3} ms {:>8.1} GB/s",
            v.name(),
            run.tile,
            run.timing.seconds * 1e3,
            run.gbps()
        ));
    }
    r.key = format!("padding: {:.2}x the unpadded tile", times[1] / times[2]);
    r.line(format!("{m}×{n}{}", cpu_note(gpu)));
    Ok(r)
}

/// 07: workgroup atomics against global atomics.
pub fn workgroup_atomics(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "07 workgroup atomics (histogram)",
        "Counting in workgroup memory turns n contended global atomics into 256 per workgroup.",
    );
    let n = size.pick(1 << 20, 256 << 20);
    let mut rng = StdRng::seed_from_u64(7);
    // Skewed bytes: half of them fall in one bin, the worst case for atomics.
    let data: Vec<u8> = (0..n)
        .map(|_| {
            if rng.random::<bool>() {
                42
            } else {
                rng.random()
            }
        })
        .collect();
    let mut expected = [0u32; 256];
    data.iter().for_each(|&b| expected[b as usize] += 1);
    let mut t = vec![];
    let words = gpu.upload("bytes", &histogram::pack_bytes(&data))?;
    for v in histogram::Variant::ALL {
        let (h, run) = gpu.steady(
            || gpu.histogram_on_device(&words, histogram::Values::U8(n), v),
            |r| r.1.timing.seconds,
        )?;
        r.verified &= h == expected;
        t.push(run.timing.seconds);
        r.line(format!(
            "{:<9} {:>9.3} ms {:>8.1} GB/s",
            v.name(),
            run.timing.seconds * 1e3,
            run.gbps()
        ));
    }
    r.key = format!("workgroup atomics {:.1}x faster", t[1] / t[0]);
    Ok(r)
}

/// 08: wide loads.
pub fn wide_loads(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "08 wide loads (float4)",
        "One 128-bit load moves four words with one instruction: fewer instructions per byte.",
    );
    let n = size.pick(1 << 20, 64 << 20);
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let sum = x.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let mut g = vec![];
    let (dx, dcopy) = (gpu.upload("x", &x)?, gpu.alloc::<u32>("copy", n)?);
    for w in wide::Width::ALL {
        gpu.poison(&dcopy)?;
        let run = gpu.steady(|| gpu.copy_on_device(&dx, &dcopy, w), |r| r.timing.seconds)?;
        let copy = gpu.read(&dcopy)?;
        let (s, srun) = gpu.steady(|| gpu.sum_on_device(&dx, w), |r| r.1.timing.seconds)?;
        r.verified &= copy == x && s == sum;
        g.push(run.gbps());
        r.line(format!(
            "{:<6} copy {:>8.1} GB/s | sum {:>8.1} GB/s",
            w.name(),
            run.gbps(),
            srun.gbps()
        ));
    }
    r.key = format!("vec4 copy {:.2}x scalar", g[1] / g[0]);
    Ok(r)
}

/// 09: blur and its compute-to-global-memory-access ratio.
pub fn blur_ratio(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::new(
        "09 blur and the compute-to-global-memory-access ratio (PMPP fig 4.1)",
        "The naive blur does one add per global load (ratio 1.0): bandwidth-bound. Staging the tile and its halo in workgroup memory raises the ratio toward (2r+1)².",
    );
    let (w, h) = size.pick((97, 61), (4096, 4096));
    let img = rand_f32(w * h, 9);
    let exact = blur::reference(&img, w, h, 2);
    let (dimg, dout) = (
        gpu.upload("image", &img)?,
        gpu.alloc::<f32>("blurred", w * h)?,
    );
    for v in blur::Variant::ALL {
        gpu.poison(&dout)?;
        let run = gpu.steady(
            || gpu.blur_on_device(&dimg, &dout, (w, h), 2, v),
            |r| r.run.timing.seconds,
        )?;
        let out = gpu.read(&dout)?;
        r.verified &= blur::verify(&out, &exact, 2).is_ok();
        r.line(format!(
            "{:<6} ratio {:>5.2} adds/load | {:>9.3} ms {:>8.1} GB/s ({})",
            v.name(),
            run.ratio,
            run.run.timing.seconds * 1e3,
            run.run.gbps(),
            run.run.tile
        ));
        r.key = format!("tiled ratio {:.1}", run.ratio);
    }
    r.line(format!(
        "{w}×{h}, BLUR_SIZE 2 (5×5 window){}",
        cpu_note(gpu)
    ));
    Ok(r)
}

/// 10: carved workgroup arrays.
pub fn carved_arrays(gpu: &Gpu) -> Result<Report> {
    let mut r = Report::new(
        "10 carved workgroup arrays (Harris)",
        "One override-sized workgroup allocation split into an i32, an f32 (bitcast) and a byte part, as integerData/floatData/charData carved from one extern array.",
    );
    let n = 64usize;
    let ints: Vec<i32> = (0..n as i32).map(|i| i * -3).collect();
    let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let chars: Vec<u8> = (0..4 * n).map(|i| (i * 7) as u8).collect();
    let (out, run) = gpu.carved_reverse(&ints, &floats, &chars)?;
    r.verified = out.ints.iter().eq(ints.iter().rev())
        && out.floats.iter().eq(floats.iter().rev())
        && out.chars.iter().eq(chars.iter().rev());
    r.line(format!(
        "{} — ints[0] {} floats[0] {} chars[0] {}",
        run.tile, out.ints[0], out.floats[0], out.chars[0]
    ));
    r.key = "three parts, one allocation".into();
    Ok(r)
}

/// Every lesson in order (`tilekit tour`); `progress` is called before each.
pub fn run_all(
    gpu: &Gpu,
    size: Size,
    mut progress: impl FnMut(&str),
) -> Vec<(String, Result<Report>)> {
    type Lesson<'a> = (&'a str, Box<dyn Fn() -> Result<Report> + 'a>);
    let lessons: Vec<Lesson> = vec![
        ("01 device query", Box::new(|| device_query(gpu))),
        ("02 tiled matmul", Box::new(move || tiled_matmul(gpu, size))),
        ("03 tile from limits", Box::new(|| tile_from_limits(gpu))),
        ("04 reverse", Box::new(move || reverse(gpu, size))),
        ("05 reduction", Box::new(move || reduction(gpu, size))),
        (
            "06 bank conflicts",
            Box::new(move || bank_conflicts(gpu, size)),
        ),
        (
            "07 workgroup atomics",
            Box::new(move || workgroup_atomics(gpu, size)),
        ),
        ("08 wide loads", Box::new(move || wide_loads(gpu, size))),
        ("09 blur", Box::new(move || blur_ratio(gpu, size))),
        ("10 carved arrays", Box::new(|| carved_arrays(gpu))),
    ];
    lessons
        .into_iter()
        .map(|(name, f)| {
            progress(name);
            (name.to_string(), f())
        })
        .collect()
}

/// The `main` of every example: open the best adapter, run one lesson at the size the command
/// line asks for (`--quick` or `TILEKIT_QUICK=1` for small), print it, and exit non-zero if its
/// result did not match the CPU reference.
pub fn example(lesson: impl FnOnce(&Gpu, Size) -> Result<Report>) {
    let run = || -> Result<Report> {
        let gpu = Gpu::new()?;
        println!("adapter: {} ({})\n", gpu.summary.name, gpu.summary.backend);
        lesson(&gpu, Size::from_args())
    };
    match run() {
        Ok(report) => {
            println!("{}", report.render());
            if !report.verified {
                eprintln!("the result did not match the CPU reference");
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
