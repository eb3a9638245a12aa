//! A bench case as its family writes it (`src/kernels/F/bench.rs`): the [`Bench`] a family adds
//! its cases to with [`Bench::measure`], and the timing protocol: the first run verified against
//! the CPU reference, warm-up runs until the GPU has been busy for [`tilekit::measure::warm_up_seconds`], then
//! the median and the spread of repeats; GPU timestamps where the adapter has them. The bench
//! itself (ceilings, the table, JSON, the roofline) is `crate::bench`.

use serde::{Deserialize, Serialize};
use tilekit::{Gpu, Result};

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
    /// Memory bandwidth.
    Memory,
    /// Arithmetic on the scalar units (the FMA ceiling).
    Compute,
    /// Arithmetic on the matrix units (the cooperative-matrix ceiling), where the adapter has
    /// them.
    Matrix,
}

/// One kernel's result (JSON in SI base units: seconds, bytes per second, operations per
/// second).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    /// `family/variant`.
    pub name: String,
    /// Problem size.
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
    /// Bytes per second at the median.
    #[serde(default)]
    pub bytes_per_second: f64,
    /// Operations per second at the median.
    #[serde(default)]
    pub ops_per_second: f64,
    /// Which ceiling applies.
    pub bound: Bound,
    /// Percent of that ceiling.
    pub percent_of_ceiling: f64,
    /// The result matched the CPU reference.
    pub verified: bool,
    /// GB/s, as files written before schema 1 had it (read only).
    #[serde(default, skip_serializing)]
    pub(crate) gbps: Option<f64>,
    /// G op/s, as files written before schema 1 had it (read only).
    #[serde(default, skip_serializing)]
    pub(crate) gops: Option<f64>,
}

pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// A bench run in progress: the families add their cases with [`Bench::measure`].
pub struct Bench<'a> {
    /// The GPU.
    pub gpu: &'a Gpu,
    /// The settings.
    pub cfg: Config,
    pub(crate) entries: Vec<Entry>,
    pub(crate) skipped: Vec<String>,
    pub(crate) progress: Box<dyn FnMut(&str) + 'a>,
}

/// What one measured call returns: seconds, whether it verified, the plan it ran.
pub type Sample = (f64, bool, String);

impl Bench<'_> {
    /// `quick` in quick mode, else `full`.
    pub fn pick<T>(&self, quick: T, full: T) -> T {
        if self.cfg.quick {
            quick
        } else {
            full
        }
    }

    /// Whether the adapter has the features case `name` needs; if not, the case is skipped with
    /// a one-line reason (printed, and kept in the report).
    pub fn available(&mut self, name: &str, needs: wgpu::Features) -> bool {
        match self.gpu.require(needs, name) {
            Ok(()) => true,
            Err(e) => {
                if self.wants(name) {
                    eprintln!("skipped {name}: {e}");
                    self.skipped.push(format!("{name}: {e}"));
                }
                false
            }
        }
    }

    /// Whether any case whose name starts with `prefix` passes the filter (so a family skips
    /// preparing inputs nobody will time).
    pub fn wants(&self, prefix: &str) -> bool {
        match &self.cfg.filter {
            None => true,
            Some(f) => prefix.contains(f.as_str()) || f.contains(prefix.trim_end_matches('/')),
        }
    }

    /// Whether [`Bench::measure`] times a case of this exact name (`--filter` keeps the names
    /// that contain it), so that a case can skip making its inputs when it would not run.
    pub fn measures(&self, name: &str) -> bool {
        self.cfg
            .filter
            .as_ref()
            .is_none_or(|s| name.contains(s.as_str()))
    }

    /// Time `f` (which returns seconds, whether its result verified and its plan; its argument
    /// says whether this run is the one to verify) and record it.
    #[allow(clippy::too_many_arguments)]
    pub fn measure(
        &mut self,
        name: &str,
        size: String,
        bytes: u64,
        ops: u64,
        bound: Bound,
        f: impl FnMut(bool) -> Result<Sample>,
    ) -> Result<()> {
        self.measure_copies(name, size, (bytes, ops, bound), false, f)
    }

    /// [`Bench::measure`] for work that leaves the same result however often it runs (a matmul):
    /// each timed run is copies of the call back to back, as [`Gpu::measure_back_to_back`]
    /// times them, so that a short kernel keeps the GPU's clock up.
    ///
    /// [`Gpu::measure_back_to_back`]: tilekit::Gpu::measure_back_to_back
    #[allow(clippy::too_many_arguments)]
    pub fn measure_back_to_back(
        &mut self,
        name: &str,
        size: String,
        bytes: u64,
        ops: u64,
        bound: Bound,
        f: impl FnMut(bool) -> Result<Sample>,
    ) -> Result<()> {
        self.measure_copies(name, size, (bytes, ops, bound), true, f)
    }

    fn measure_copies(
        &mut self,
        name: &str,
        size: String,
        (bytes, ops, bound): (u64, u64, Bound),
        back_to_back: bool,
        mut f: impl FnMut(bool) -> Result<Sample>,
    ) -> Result<()> {
        if !self.measures(name) {
            return Ok(());
        }
        (self.progress)(name);
        // Warm up by count and by time, so that the GPU's clocks are up: longer when the GPU
        // idled before the first run (while the inputs were made) or during its verification
        // (Gpu::warm_up_seconds).
        let before = tilekit::measure::warm_up_seconds(self.gpu);
        // The first run is verified against the CPU reference; the rest are only timed.
        let (once, verified, plan) = f(true)?;
        let n = if back_to_back {
            tilekit::measure::copies_after(self.gpu, once)
        } else {
            1
        };
        let warm_up = before.max(tilekit::measure::warm_up_seconds(self.gpu));
        let (warmup, repeats) = (self.cfg.warmup, self.cfg.repeats.max(1));
        let mut times = tilekit::measure::with_copies(self.gpu, n, || -> Result<Vec<f64>> {
            let start = std::time::Instant::now();
            let mut runs = 1;
            while runs < warmup || start.elapsed().as_secs_f64() < warm_up {
                f(false)?;
                runs += 1;
            }
            (0..repeats).map(|_| Ok(f(false)?.0)).collect()
        })?;
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
            bytes_per_second: bytes as f64 / med,
            ops_per_second: ops as f64 / med,
            bound,
            percent_of_ceiling: 0.0,
            verified,
            gbps: None,
            gops: None,
        });
        Ok(())
    }
}

/// Random f32 in [-1, 1) from a fixed seed (the bench's inputs).
pub fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    tilekit::random::uniform_f32(n, seed)
}
