//! `tilekit bench`: every kernel against the adapter's ceilings measured in the same run.
//! Protocol: warm-up runs, then the median and the spread of repeats; GPU timestamps where the
//! adapter has them. Sizes are scaled for `--quick` (lavapipe) or a discrete GPU.

use crate::kernels::{blur, histogram, matmul, reduce, transpose, wide};
use crate::launch::Clock;
use crate::pipeline::Shader;
use crate::{Error, Gpu, Result};
use rand::{rngs::StdRng, Rng, SeedableRng};
use serde::{Deserialize, Serialize};

const CEILING: Shader = Shader::file("ceiling", include_str!("../shaders/ceiling.wgsl"));

/// Bench settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Small sizes for a CPU adapter (under a minute on lavapipe).
    pub quick: bool,
    /// Timed repeats per kernel after the warm-up.
    pub repeats: usize,
    /// Untimed warm-up runs.
    pub warmup: usize,
    /// Only kernels whose name contains this.
    pub filter: Option<String>,
}

impl Config {
    /// Defaults for quick or full mode.
    pub fn new(quick: bool) -> Config {
        Config {
            quick,
            repeats: if quick { 3 } else { 10 },
            warmup: if quick { 1 } else { 3 },
            filter: None,
        }
    }
}

/// Which ceiling a kernel is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// Memory bandwidth (GB/s).
    Memory,
    /// Arithmetic (GFLOP/s).
    Compute,
}

/// One kernel's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    /// `family/variant`.
    pub name: String,
    /// Problem size in words.
    pub size: String,
    /// The plan or tile that ran.
    pub plan: String,
    /// Median seconds.
    pub median_s: f64,
    /// Fastest and slowest repeat.
    pub spread_s: (f64, f64),
    /// Every timed repeat.
    pub repeats_s: Vec<f64>,
    /// Bytes read + written per run.
    pub bytes: u64,
    /// Operations per run (2·M·N·K for matmul, one per element otherwise).
    pub ops: u64,
    /// GB/s at the median.
    pub gbps: f64,
    /// Operations/s at the median, in G.
    pub gops: f64,
    /// Which ceiling applies.
    pub bound: Bound,
    /// Percent of that ceiling.
    pub percent_of_ceiling: f64,
    /// The result matched the CPU reference.
    pub verified: bool,
}

/// A whole bench run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// Adapter name.
    pub adapter: String,
    /// Backend and driver.
    pub driver: String,
    /// Clock used.
    pub clock: String,
    /// Copy ceiling, GB/s.
    pub bandwidth_ceiling_gbps: f64,
    /// FMA ceiling, GFLOP/s.
    pub compute_ceiling_gflops: f64,
    /// Every kernel.
    pub entries: Vec<Entry>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

struct Bench<'a> {
    warm_up_seconds: f64,
    cfg: Config,
    entries: Vec<Entry>,
    progress: Box<dyn FnMut(&str) + 'a>,
}

impl Bench<'_> {
    /// Time `f` (which returns seconds and whether its result verified) and record it.
    #[allow(clippy::too_many_arguments)]
    fn measure(
        &mut self,
        name: &str,
        size: String,
        bytes: u64,
        ops: u64,
        bound: Bound,
        mut f: impl FnMut(bool) -> Result<(f64, bool, String)>,
    ) -> Result<()> {
        if self
            .cfg
            .filter
            .as_ref()
            .is_some_and(|s| !name.contains(s.as_str()))
        {
            return Ok(());
        }
        (self.progress)(name);
        // The first run is verified against the CPU reference; the rest are only timed.
        let (_, verified, plan) = f(true)?;
        // Warm up by count and by time, so that the GPU's clocks are up (Gpu::warm_up_seconds).
        let start = std::time::Instant::now();
        let mut runs = 1;
        while runs < self.cfg.warmup || start.elapsed().as_secs_f64() < self.warm_up_seconds {
            f(false)?;
            runs += 1;
        }
        let mut times = Vec::with_capacity(self.cfg.repeats);
        for _ in 0..self.cfg.repeats.max(1) {
            times.push(f(false)?.0);
        }
        let repeats_s = times.clone();
        let med = median(&mut times);
        self.entries.push(Entry {
            name: name.to_string(),
            size,
            plan,
            median_s: med,
            spread_s: (times[0], times[times.len() - 1]),
            repeats_s,
            bytes,
            ops,
            gbps: bytes as f64 / med / 1e9,
            gops: ops as f64 / med / 1e9,
            bound,
            percent_of_ceiling: 0.0,
            verified,
        });
        Ok(())
    }
}

fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = StdRng::seed_from_u64(seed);
    (0..n).map(|_| r.random_range(-1.0f32..1.0)).collect()
}

/// Run the bench. `progress` is told each kernel's name as it starts.
pub fn run<'a>(gpu: &'a Gpu, cfg: Config, progress: impl FnMut(&str) + 'a) -> Result<Report> {
    let q = cfg.quick;
    let pick = |quick: usize, full: usize| if q { quick } else { full };
    let mut b = Bench {
        warm_up_seconds: gpu.warm_up_seconds(),
        cfg,
        entries: vec![],
        progress: Box::new(progress),
    };

    // Ceilings: a vec4 copy far larger than the last-level cache, and eight FMA chains.
    let words = pick(1 << 22, 1 << 28).min((gpu.limits().max_binding_bytes() / 4) as usize);
    // Random words, so that a GPU that compresses device memory cannot inflate the ceiling with
    // constant data (on the H100 it made no difference: BENCHMARKS.md).
    let mut rng = StdRng::seed_from_u64(17);
    let words_data: Vec<u32> = (0..words).map(|_| rng.random()).collect();
    let src = gpu.upload("ceiling source", &words_data)?;
    drop(words_data);
    let dst = gpu.alloc::<u32>("ceiling destination", words)?;
    b.measure(
        "ceiling/copy-vec4",
        format!("{words}"),
        8 * words as u64,
        words as u64,
        Bound::Memory,
        |_| {
            let r = gpu.copy_on_device(&src, &dst, wide::Width::Vec4)?;
            Ok((r.timing.seconds, true, r.tile))
        },
    )?;
    let (iters, groups) = (pick(256, 4096) as u32, pick(64, 132 * 64) as u32);
    let sink = gpu.alloc::<f32>("fma sink", groups as usize * 256)?;
    let params = gpu.uniform(&[iters, groups, 0.999_999f32.to_bits(), 0]);
    let fma_ops = groups as u64 * 256 * iters as u64 * 8 * 2;
    b.measure(
        "ceiling/fma",
        format!("{groups}x256x{iters}x8"),
        0,
        fma_ops,
        Bound::Compute,
        |_| {
            let t = gpu.launch(
                &CEILING,
                "fma_chains",
                &[("WG".into(), 256.0)],
                &[(0, sink.raw()), (1, &params)],
                groups as u64,
            )?;
            Ok((t.seconds, true, "WG=256, 8 chains".into()))
        },
    )?;
    drop((src, dst));

    // Matmul.
    let n = pick(128, 4096);
    let (a, bm) = (rand_f32(n * n, 1), rand_f32(n * n, 2));
    let (da, db) = (gpu.upload("A", &a)?, gpu.upload("B", &bm)?);
    let dc = gpu.alloc::<f32>("C", n * n)?;
    let shape = matmul::Shape::new(n, n, n)?;
    for v in matmul::Variant::ALL {
        b.measure(
            &format!("matmul/{}", v.name()),
            format!("{n}³"),
            12 * (n * n) as u64,
            shape.flops(),
            Bound::Compute,
            |check| {
                let run = gpu.matmul_on_device(&da, &db, &dc, shape, v, None)?;
                let ok = !check || {
                    let c = gpu.read(&dc)?;
                    matmul::verify_sampled(&a, &bm, &c, (n, n, n), 64).is_ok()
                };
                Ok((run.timing.seconds, ok, run.tile))
            },
        )?;
    }
    drop((da, db, dc));

    // Reductions.
    let n = pick(1 << 20, 1 << 27).min((gpu.limits().max_binding_bytes() / 4) as usize);
    let x = rand_f32(n, 3);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let bound = ((n as f64).log2().ceil() + 2.0)
        * 2f64.powi(-24)
        * x.iter().map(|v| v.abs() as f64).sum::<f64>();
    let dx = gpu.upload("reduce input", &x)?;
    for v in reduce::Variant::ALL {
        if v == reduce::Variant::Subgroup && !gpu.has(wgpu::Features::SUBGROUP) {
            continue;
        }
        b.measure(
            &format!("reduce/{}", v.name()),
            format!("{n}"),
            4 * n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let (s, run) = gpu.reduce_on_device(&dx, reduce::Op::Sum, v)?;
                Ok((
                    run.timing.seconds,
                    ((s as f64) - exact).abs() <= bound,
                    format!("WG={} launches={}", run.workgroup, run.launches),
                ))
            },
        )?;
    }
    let u: Vec<u32> = x.iter().map(|v| v.to_bits()).collect();
    let usum = u.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let du = gpu.upload("sum input", &u)?;
    for w in wide::Width::ALL {
        b.measure(
            &format!("sum-u32/{}", w.name()),
            format!("{n}"),
            4 * n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let (s, run) = gpu.sum_on_device(&du, w)?;
                Ok((run.timing.seconds, s == usum, run.tile))
            },
        )?;
    }
    let dcopy = gpu.alloc::<u32>("copy", n)?;
    for w in wide::Width::ALL {
        b.measure(
            &format!("copy/{}", w.name()),
            format!("{n}"),
            8 * n as u64,
            n as u64,
            Bound::Memory,
            |check| {
                let run = gpu.copy_on_device(&du, &dcopy, w)?;
                let ok = !check || gpu.read(&dcopy)? == u;
                Ok((run.timing.seconds, ok, run.tile))
            },
        )?;
    }
    drop((dx, du, dcopy));

    // Reverse, transpose, histogram, blur: inputs uploaded once, only the kernels timed.
    let n = pick(1 << 20, 1 << 26);
    let r: Vec<u32> = (0..n as u32).collect();
    let (dr, drout) = (
        gpu.upload("reverse input", &r)?,
        gpu.alloc::<u32>("reversed", n)?,
    );
    b.measure(
        "reverse/block",
        format!("{n}"),
        8 * n as u64,
        n as u64,
        Bound::Memory,
        |check| {
            let run = gpu.reverse_on_device(&dr, &drout)?;
            let ok = !check
                || gpu
                    .read(&drout)?
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v as usize == n - 1 - i);
            Ok((run.timing.seconds, ok, run.tile))
        },
    )?;
    drop((dr, drout));
    let side = pick(512, 8192);
    let t = rand_f32(side * side, 4);
    let (dt, dtout) = (
        gpu.upload("transpose input", &t)?,
        gpu.alloc::<f32>("transposed", side * side)?,
    );
    for v in transpose::Variant::ALL {
        let bytes = 8 * (side * side) as u64;
        b.measure(
            &format!("transpose/{}", v.name()),
            format!("{side}²"),
            bytes,
            (side * side) as u64,
            Bound::Memory,
            |check| {
                let run = gpu.transpose_on_device(&dt, &dtout, (side, side), v, None)?;
                let ok = !check || {
                    let out = gpu.read(&dtout)?;
                    (0..side).all(|i| (0..side).all(|j| out[j * side + i] == t[i * side + j]))
                };
                Ok((run.timing.seconds, ok, run.tile))
            },
        )?;
    }
    drop((dt, dtout));
    let n = pick(1 << 20, 1 << 28);
    let mut rng = StdRng::seed_from_u64(5);
    let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
    let mut expected = [0u32; 256];
    bytes.iter().for_each(|&v| expected[v as usize] += 1);
    let words = gpu.upload("histogram input", &histogram::pack_bytes(&bytes))?;
    drop(bytes);
    for v in histogram::Variant::ALL {
        b.measure(
            &format!("histogram/{}", v.name()),
            format!("{n} bytes"),
            n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let (h, run) = gpu.histogram_on_device(&words, histogram::Values::U8(n), v)?;
                Ok((run.timing.seconds, h == expected, run.tile))
            },
        )?;
    }
    drop(words);
    let side = pick(256, 4096);
    let img = rand_f32(side * side, 6);
    let exact = blur::reference(&img, side, side, 2);
    let (dimg, dblur) = (
        gpu.upload("image", &img)?,
        gpu.alloc::<f32>("blurred", side * side)?,
    );
    for v in blur::Variant::ALL {
        let (bytes, ops) = (8 * (side * side) as u64, 25 * (side * side) as u64);
        b.measure(
            &format!("blur-r2/{}", v.name()),
            format!("{side}²"),
            bytes,
            ops,
            Bound::Memory,
            |check| {
                let run = gpu.blur_on_device(&dimg, &dblur, (side, side), 2, v)?;
                let ok = !check || blur::verify(&gpu.read(&dblur)?, &exact, 2).is_ok();
                Ok((run.run.timing.seconds, ok, run.run.tile))
            },
        )?;
    }

    let find = |name: &str| b.entries.iter().find(|e| e.name == name);
    let bw = find("ceiling/copy-vec4").map_or(0.0, |e| e.gbps);
    let fl = find("ceiling/fma").map_or(0.0, |e| e.gops);
    for e in &mut b.entries {
        e.percent_of_ceiling = match e.bound {
            Bound::Memory if bw > 0.0 => 100.0 * e.gbps / bw,
            Bound::Compute if fl > 0.0 => 100.0 * e.gops / fl,
            _ => 0.0,
        };
    }
    let s = &gpu.summary;
    Ok(Report {
        adapter: s.name.clone(),
        driver: format!("{} {} {}", s.backend, s.driver, s.driver_info),
        clock: gpu.clock().to_string(),
        bandwidth_ceiling_gbps: bw,
        compute_ceiling_gflops: fl,
        entries: b.entries,
    })
}

impl Report {
    /// The terminal table.
    pub fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut s = format!(
            "adapter: {} | {} | timing: {}\nceilings: copy {:.1} GB/s, FMA {:.1} GFLOP/s\n",
            self.adapter,
            self.driver,
            self.clock,
            self.bandwidth_ceiling_gbps,
            self.compute_ceiling_gflops
        );
        let _ = writeln!(
            s,
            "{:<22} {:<12} {:>11} {:>21} {:>10} {:>11} {:>7} {:<8} plan",
            "kernel", "size", "median ms", "spread ms", "GB/s", "Gop/s", "% ceil", "verified"
        );
        for e in &self.entries {
            let _ = writeln!(
                s,
                "{:<22} {:<12} {:>11.4} {:>10.4}-{:<10.4} {:>10.1} {:>11.1} {:>6.0}% {:<8} {}",
                e.name,
                e.size,
                e.median_s * 1e3,
                e.spread_s.0 * 1e3,
                e.spread_s.1 * 1e3,
                e.gbps,
                e.gops,
                e.percent_of_ceiling,
                if e.verified { "yes" } else { "NO" },
                e.plan
            );
        }
        s
    }

    /// This run against an earlier one: ratio of medians (earlier / now, > 1 = faster now).
    pub fn compare(&self, earlier: &Report) -> String {
        use std::fmt::Write as _;
        let mut s = format!("against {} ({})\n", earlier.adapter, earlier.clock);
        for e in &self.entries {
            match earlier.entries.iter().find(|o| o.name == e.name) {
                Some(o) => {
                    let _ = writeln!(
                        s,
                        "{:<22} {:>10.4} ms → {:>10.4} ms  {:>6.2}x",
                        e.name,
                        o.median_s * 1e3,
                        e.median_s * 1e3,
                        o.median_s / e.median_s
                    );
                }
                None => {
                    let _ = writeln!(s, "{:<22} new", e.name);
                }
            }
        }
        s
    }

    /// A roofline chart: operational intensity (ops per byte) against achieved Gop/s, with the
    /// two ceilings, one labelled point per kernel.
    pub fn roofline_svg(&self, path: &std::path::Path) -> Result<()> {
        use plotters::prelude::*;
        let err = |e: &dyn std::fmt::Display| Error::Io {
            path: path.display().to_string(),
            source: std::io::Error::other(e.to_string()),
        };
        let pts: Vec<(String, f64, f64)> = self
            .entries
            .iter()
            .filter(|e| e.bytes > 0 && e.ops > 0 && !e.name.starts_with("ceiling"))
            .map(|e| (e.name.clone(), e.ops as f64 / e.bytes as f64, e.gops))
            .collect();
        let (bw, fl) = (
            self.bandwidth_ceiling_gbps.max(1e-3),
            self.compute_ceiling_gflops.max(1e-3),
        );
        let xmin = 0.01f64;
        let xmax = pts
            .iter()
            .map(|p| p.1)
            .fold(fl / bw * 10.0, f64::max)
            .max(1.0)
            * 2.0;
        let ymin = pts.iter().map(|p| p.2).fold(fl, f64::min).max(1e-3) / 2.0;
        let ymax = fl * 2.0;
        let root = SVGBackend::new(path, (1000, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("tilekit roofline: {}", self.adapter),
                ("sans-serif", 22),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d((xmin..xmax).log_scale(), (ymin..ymax).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("operations per byte of global memory")
            .y_desc("G operations / s")
            .draw()
            .map_err(|e| err(&e))?;
        let roof: Vec<(f64, f64)> = (0..=200)
            .map(|i| {
                let x = xmin * (xmax / xmin).powf(i as f64 / 200.0);
                (x, (x * bw).min(fl))
            })
            .collect();
        chart
            .draw_series(LineSeries::new(roof, BLACK.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(format!("ceilings: {bw:.0} GB/s copy, {fl:.0} GFLOP/s FMA"));
        for (i, (name, x, y)) in pts.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(std::iter::once(Circle::new((*x, *y), 5, color.filled())))
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(Text::new(
                    name.clone(),
                    (*x, *y),
                    ("sans-serif", 12),
                )))
                .map_err(|e| err(&e))?;
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
        Ok(())
    }
}

/// Whether a report's clock is the GPU's.
pub fn is_gpu_clock(r: &Report) -> bool {
    r.clock == Clock::GpuTimestamp.to_string()
}
