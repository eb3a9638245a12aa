//! `tilekit bench`: every kernel against the adapter's ceilings measured in the same run.
//! Protocol: the first run verified against the CPU reference, warm-up runs until the GPU has
//! been busy for [`Gpu::warm_up_seconds`], then the median and the spread of repeats; GPU
//! timestamps where the adapter has them. Sizes are scaled for `--quick` (lavapipe) or a
//! discrete GPU. The ceilings are here; every family adds its cases (`bench/F.rs`), registered in [`CASES`].

mod blur;
mod case;
mod histogram;
pub(crate) mod matmul;
mod reduce;
pub(crate) mod report;
mod reverse;
mod transpose;
mod wide;

pub use case::{rand_f32, Bench, Bound, Config, Entry, Sample};
use serde::{Deserialize, Serialize};
use tilekit::{Gpu, Result};
use tilekit_course::units;

/// Each family's bench cases, by the family's name, in the lessons' order: one line registers a
/// family.
type Cases = fn(&mut Bench<'_>) -> Result<()>;
const CASES: &[(&str, Cases)] = &[
    ("matmul", matmul::cases),
    ("reverse", reverse::cases),
    ("reduce", reduce::cases),
    ("transpose", transpose::cases),
    ("histogram", histogram::cases),
    ("wide", wide::cases),
    ("blur", blur::cases),
];

/// A whole bench run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The JSON shape's version ([`crate::run::SCHEMA`]); 0 for files written before it had
    /// one.
    #[serde(default)]
    pub schema: u32,
    /// Adapter name.
    pub adapter: String,
    /// Backend and driver.
    pub driver: String,
    /// Clock used.
    pub clock: String,
    /// Copy ceiling, bytes per second.
    #[serde(default)]
    pub bandwidth_ceiling: f64,
    /// FMA ceiling, FLOP per second.
    #[serde(default)]
    pub compute_ceiling: f64,
    /// Matrix-unit ceiling, FLOP per second (0 where the adapter has no cooperative matrices).
    #[serde(default)]
    pub matrix_ceiling: f64,
    /// Every kernel.
    pub entries: Vec<Entry>,
    /// Cases this adapter cannot run, with the reason (`name: reason`).
    #[serde(default)]
    pub skipped: Vec<String>,
    #[serde(default, skip_serializing)]
    bandwidth_ceiling_gbps: Option<f64>,
    #[serde(default, skip_serializing)]
    compute_ceiling_gflops: Option<f64>,
}

impl Report {
    /// Read a report written by `tilekit bench --json` (any schema version).
    pub fn from_json(text: &str) -> std::result::Result<Report, serde_json::Error> {
        let mut r: Report = serde_json::from_str(text)?;
        // Schema 0 kept GB/s and G op/s.
        if let Some(g) = r.bandwidth_ceiling_gbps {
            r.bandwidth_ceiling = g * 1e9;
        }
        if let Some(g) = r.compute_ceiling_gflops {
            r.compute_ceiling = g * 1e9;
        }
        for e in &mut r.entries {
            if let Some(g) = e.gbps {
                e.bytes_per_second = g * 1e9;
            }
            if let Some(g) = e.gops {
                e.ops_per_second = g * 1e9;
            }
        }
        Ok(r)
    }
}

/// The ceilings: a vec4 copy far larger than the last-level cache, eight FMA chains, and where
/// the adapter has cooperative matrices eight independent products per subgroup on them.
fn ceilings(b: &mut Bench<'_>) -> Result<()> {
    let gpu = b.gpu;
    let words = b
        .pick(1 << 22, 1 << 28)
        .min((gpu.limits().max_binding_bytes() / 4) as usize);
    // Random words, so that a GPU that compresses device memory cannot inflate the ceiling with
    // constant data (on the H100 it made no difference: BENCHMARKS.md).
    let mut rng = tilekit::random::Rng::new(17);
    let words_data: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
    let src = gpu.upload("ceiling source", &words_data).wait()?;
    drop(words_data);
    let dst = gpu.alloc::<u32>("ceiling destination", words).wait()?;
    b.measure(
        "ceiling/copy-vec4",
        format!("{words}"),
        8 * words as u64,
        words as u64,
        Bound::Memory,
        |_| {
            let r = gpu
                .copy_on_device(&src, &dst, tilekit::kernels::wide::Width::Vec4)
                .wait()?;
            Ok((r.timing.seconds, true, r.tile))
        },
    )?;
    drop((src, dst));
    let (iters, groups) = (b.pick(256, 4096) as u32, b.pick(64, 132 * 64) as u32);
    let sink = gpu.alloc::<f32>("fma sink", groups as usize * 256).wait()?;
    let fma_ops = groups as u64 * 256 * iters as u64 * 8 * 2;
    b.measure(
        "ceiling/fma",
        format!("{groups}x256x{iters}x8"),
        0,
        fma_ops,
        Bound::Compute,
        |check| {
            let t = tilekit::ceiling::fma(gpu, &sink, groups, iters).wait()?;
            let ok = !check || tilekit::ceiling::fma_verified(gpu, &sink, groups, iters).wait()?;
            Ok((t.seconds, ok, "WG=256, 8 chains".into()))
        },
    )?;
    drop(sink);
    // 4 workgroups of 256 per multiprocessor of the H100 (132), each run a few milliseconds there.
    let (iters, groups) = (b.pick(64, 4096) as u32, b.pick(8, 132 * 4) as u32);
    let (len, ops) = match (
        tilekit::ceiling::matrix_sink_len(gpu, groups),
        tilekit::ceiling::matrix_flops(gpu, groups, iters),
    ) {
        (Ok(len), Ok(ops)) => (len, ops),
        (Err(e), _) | (_, Err(e)) => {
            b.skipped.push(format!("ceiling/matrix: {e}"));
            return Ok(());
        }
    };
    let sink = gpu.alloc::<f32>("matrix sink", len).wait()?;
    b.measure(
        "ceiling/matrix",
        format!("{groups}x256x{iters}x8"),
        0,
        ops,
        Bound::Matrix,
        |check| {
            let t = tilekit::ceiling::matrix(gpu, &sink, groups, iters).wait()?;
            let ok =
                !check || tilekit::ceiling::matrix_verified(gpu, &sink, groups, iters).wait()?;
            Ok((
                t.seconds,
                ok,
                "16x16x16 f16->f32, 8 products per subgroup".into(),
            ))
        },
    )
}

/// Run the bench: the ceilings, then every family's cases. `progress` is told each kernel's
/// name as it starts.
pub fn run<'a>(gpu: &'a Gpu, cfg: Config, progress: impl FnMut(&str) + 'a) -> Result<Report> {
    let mut b = Bench {
        gpu,
        cfg,
        entries: vec![],
        skipped: vec![],
        progress: Box::new(progress),
    };
    // The ceilings always run: every figure sits beside them.
    let filter = b.cfg.filter.take();
    ceilings(&mut b)?;
    b.cfg.filter = filter;
    for (family, cases) in CASES {
        if b.wants(family) || b.cfg.filter.is_some() {
            cases(&mut b)?;
        }
    }
    let find = |name: &str| b.entries.iter().find(|e| e.name == name);
    let bw = find("ceiling/copy-vec4").map_or(0.0, |e| e.bytes_per_second);
    let fl = find("ceiling/fma").map_or(0.0, |e| e.ops_per_second);
    let mx = find("ceiling/matrix").map_or(0.0, |e| e.ops_per_second);
    for e in &mut b.entries {
        e.percent_of_ceiling = match e.bound {
            Bound::Memory if bw > 0.0 => 100.0 * e.bytes_per_second / bw,
            Bound::Compute if fl > 0.0 => 100.0 * e.ops_per_second / fl,
            Bound::Matrix if mx > 0.0 => 100.0 * e.ops_per_second / mx,
            _ => 0.0,
        };
    }
    let s = &gpu.summary;
    Ok(Report {
        schema: crate::run::SCHEMA,
        adapter: s.name.clone(),
        driver: format!("{} {} {}", s.backend, s.driver, s.driver_info),
        clock: tilekit::Clock::of(gpu).to_string(),
        bandwidth_ceiling: bw,
        compute_ceiling: fl,
        matrix_ceiling: mx,
        entries: b.entries,
        skipped: b.skipped,
        bandwidth_ceiling_gbps: None,
        compute_ceiling_gflops: None,
    })
}

impl Report {
    /// The terminal table (figures in units that fit them).
    pub fn table(&self) -> String {
        use std::fmt::Write as _;
        let mut s = format!(
            "adapter: {} | {} | timing: {}\nceilings: copy {}, FMA {}{}\n",
            self.adapter,
            self.driver,
            self.clock,
            units::bandwidth(self.bandwidth_ceiling),
            units::flops(self.compute_ceiling),
            self.matrix_ceiling_text()
        );
        let _ = writeln!(
            s,
            "{:<24} {:<16} {:>10} {:>21} {:>11} {:>14} {:>7} {:<8} plan",
            "kernel", "size", "median", "spread", "bandwidth", "rate", "% ceil", "verified"
        );
        for e in &self.entries {
            let rate = match e.bound {
                Bound::Compute | Bound::Matrix => units::flops(e.ops_per_second),
                Bound::Memory => units::ops(e.ops_per_second),
            };
            let _ = writeln!(
                s,
                "{:<24} {:<16} {:>10} {:>10}-{:<10} {:>11} {:>14} {:>6.0}% {:<8} {}",
                e.name,
                e.size,
                units::time(e.median_s),
                units::time(e.spread_s.0),
                units::time(e.spread_s.1),
                if e.bytes > 0 {
                    units::bandwidth(e.bytes_per_second)
                } else {
                    "-".into()
                },
                rate,
                e.percent_of_ceiling,
                if e.verified { "yes" } else { "NO" },
                e.plan
            );
        }
        s
    }

    /// `, matrix units X` where this run measured them, else nothing.
    pub fn matrix_ceiling_text(&self) -> String {
        if self.matrix_ceiling > 0.0 {
            format!(", matrix units {}", units::flops(self.matrix_ceiling))
        } else {
            String::new()
        }
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
                        "{:<24} {:>10} → {:>10}  {:>6.2}x",
                        e.name,
                        units::time(o.median_s),
                        units::time(e.median_s),
                        o.median_s / e.median_s
                    );
                }
                None => {
                    let _ = writeln!(s, "{:<24} new", e.name);
                }
            }
        }
        s
    }
}
