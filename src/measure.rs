//! Measuring a call: a warm-up long enough for the GPU's clock to come back from idle, then the
//! median and spread of several timed runs (each timed by [`crate::launch`]), one launch at a time
//! or, for work that leaves the same result however often it runs, copies of the call back to
//! back; several calls side by side, in rounds, so that a comparison of them is not a comparison
//! of two moments of a drifting adapter; and how two measurements compare ([`Speed`]).

use crate::gpu::{Busy, Gpu, IDLE_SECONDS};
use crate::launch::{copies, Clock};
use crate::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use web_time::Instant;

/// Timed calls per [`Gpu::measure`] after the warm-up; the fewest rounds of a side-by-side
/// measurement ([`Gpu::measure_side_by_side`]).
pub const STEADY_RUNS: usize = 5;

/// Seconds over which the rounds of a side-by-side measurement spread, as far as 256 rounds
/// allow, so that its two halves ([`Speed::paired`]) are two moments.
pub const SIDE_BY_SIDE_SECONDS: f64 = 0.25;

/// The most rounds of a side-by-side measurement.
const MAX_ROUNDS: usize = 256;

/// The warm-up after an idle stretch: the kernel work a GPU needs to be back at speed
/// ([`Gpu::warm_up_seconds`]).
const IDLE_WARM_UP_SECONDS: f64 = 1.0;

/// The shortest warm-up, when the GPU has been busy long enough ([`Gpu::warm_up_seconds`]).
const BUSY_WARM_UP_SECONDS: f64 = 0.25;

/// How long each timed submission of a call measured back to back keeps the GPU busy
/// ([`Repeat::BackToBack`]).
const BUSY_SECONDS: f64 = 1e-3;

/// The most copies of a call one timed submission holds.
const MAX_COPIES: u32 = 64;

/// Copies of a call that ran `seconds` that keep the GPU busy for [`BUSY_SECONDS`] (at least 1,
/// at most [`MAX_COPIES`]).
fn back_to_back_copies(seconds: f64) -> u32 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 1;
    }
    (BUSY_SECONDS / seconds)
        .ceil()
        .clamp(1.0, MAX_COPIES as f64) as u32
}

/// The warm-up a GPU needs whose latest stretch of kernel work is `busy` (see
/// [`Gpu::warm_up_seconds`]).
fn warm_up_after(busy: Option<Busy>) -> f64 {
    match busy {
        Some(b) if b.last.elapsed().as_secs_f64() <= IDLE_SECONDS => {
            let done = b.since.elapsed().as_secs_f64();
            (IDLE_WARM_UP_SECONDS - done).clamp(BUSY_WARM_UP_SECONDS, IDLE_WARM_UP_SECONDS)
        }
        _ => IDLE_WARM_UP_SECONDS,
    }
}

/// A run timed by [`Gpu::measure`]: the median run, and the fastest and slowest of the timed ones.
#[derive(Clone, Debug)]
pub struct Measured<R> {
    /// The median run.
    pub run: R,
    /// Its seconds.
    pub median: f64,
    /// The fastest timed run's seconds.
    pub min: f64,
    /// The slowest timed run's seconds.
    pub max: f64,
    /// Every timed run's seconds, in the order they ran.
    pub times: Vec<f64>,
    /// The side-by-side measurement ([`Gpu::measure_side_by_side`]) it was one of: its
    /// runs pair, round by round, with those of every other call of the same batch.
    batch: Option<u64>,
    /// Measured on a CPU adapter ([`Speed::OnCpu`]).
    cpu: bool,
}

/// Numbers the batches of side-by-side measurements.
static NEXT_BATCH: AtomicU64 = AtomicU64::new(0);

impl<R> Measured<R> {
    /// The median, the spread and the order of `runs` (seconds, run), in the order they ran.
    fn of(mut runs: Vec<(f64, R)>, batch: Option<u64>, cpu: bool) -> Measured<R> {
        let times: Vec<f64> = runs.iter().map(|r| r.0).collect();
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (min, max) = (runs[0].0, runs[runs.len() - 1].0);
        let (median, run) = runs.swap_remove(runs.len() / 2);
        Measured {
            run,
            median,
            min,
            max,
            times,
            batch,
            cpu,
        }
    }

    /// How this run compares with `other` (see [`Speed`]): round by round where the two were
    /// measured side by side, by their spreads otherwise; not at all where either was measured
    /// on a CPU adapter ([`Speed::OnCpu`]).
    pub fn against<S>(&self, other: &Measured<S>) -> Speed {
        if self.cpu || other.cpu {
            return Speed::OnCpu;
        }
        match (self.batch, other.batch) {
            (Some(a), Some(b)) if a == b && self.times.len() == other.times.len() => {
                Speed::paired(&self.times, &other.times)
            }
            _ => Speed::of(
                (self.median, self.min, self.max),
                (other.median, other.min, other.max),
            ),
        }
    }

    /// The same measurement with its run replaced by `f(run)`; it still pairs with the others
    /// of its batch.
    pub fn map<S>(self, f: impl FnOnce(R) -> S) -> Measured<S> {
        Measured {
            run: f(self.run),
            median: self.median,
            min: self.min,
            max: self.max,
            times: self.times,
            batch: self.batch,
            cpu: self.cpu,
        }
    }
}

/// The factor by which two medians must differ before a speed-up or a slow-down is claimed.
const CLEAR: f64 = 1.1;

/// How one timed run compares with another, said so that a rerun says the same: "1.8x faster"
/// or "1.4x slower" only when the medians differ by more than 10% and the runs agree: for two
/// calls measured side by side, round by round ([`Speed::paired`]); otherwise the two spreads
/// must not overlap ([`Speed::of`]). Anything less is no difference the measurement can tell.
/// On a CPU adapter nothing is compared ([`Speed::OnCpu`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// Faster by this factor (> 1).
    Faster(f64),
    /// Slower by this factor (> 1).
    Slower(f64),
    /// No difference the measurement can tell; the ratio of the medians.
    Same(f64),
    /// Not compared: measured on a CPU adapter, whose kernels' speeds follow whatever else the
    /// machine runs: on lavapipe the same pair of kernels can swap places between two processes
    /// (BENCHMARKS.md, "lavapipe (Mesa, 2 cores): the CI machine").
    OnCpu,
}

impl Speed {
    /// Compare (median, min, max) seconds of `a` with those of `b`, measured apart: a speed-up
    /// only where the spreads do not overlap.
    pub fn of(a: (f64, f64, f64), b: (f64, f64, f64)) -> Speed {
        let ratio = b.0 / a.0;
        if a.2 < b.1 && ratio > CLEAR {
            Speed::Faster(ratio)
        } else if a.1 > b.2 && ratio < 1.0 / CLEAR {
            Speed::Slower(1.0 / ratio)
        } else {
            Speed::Same(ratio)
        }
    }

    /// Compare the seconds of `a` with those of `b`, measured side by side in rounds (`a[i]`
    /// beside `b[i]`): the median of the rounds' ratios. A speed-up is claimed only where it is
    /// above 1.1, three rounds in four or more have one (the lower quartile of the ratios is
    /// above 1), and the first half of the rounds and the second each show it on their own
    /// (each half's median above 1.1: a rerun within the measurement); a slow-down likewise.
    ///
    /// Why: a CPU adapter's speed drifts by more than the difference of two kernels, and a
    /// kernel may move between regimes of its own for tens of rounds at a time. Side by side,
    /// each round's two calls share one moment; the rounds spread over [`SIDE_BY_SIDE_SECONDS`],
    /// so a regime that holds for only part of them makes the halves disagree. One that holds for
    /// seconds is beyond any measurement, so a CPU adapter's runs are not compared
    /// ([`Speed::OnCpu`]; BENCHMARKS.md, "Process to process").
    pub fn paired(a: &[f64], b: &[f64]) -> Speed {
        let ratios: Vec<f64> = a.iter().zip(b).map(|(a, b)| b / a).collect();
        if ratios.is_empty() {
            return Speed::Same(f64::NAN);
        }
        let (first, second) = ratios.split_at(ratios.len() / 2);
        let halves = [median(first), median(second)];
        let mut sorted = ratios.clone();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let (low, ratio, high) = (sorted[n / 4], sorted[n / 2], sorted[(3 * n) / 4]);
        if ratio > CLEAR && low > 1.0 && halves.iter().all(|&h| h > CLEAR) {
            Speed::Faster(ratio)
        } else if ratio < 1.0 / CLEAR && high < 1.0 && halves.iter().all(|&h| h < 1.0 / CLEAR) {
            Speed::Slower(1.0 / ratio)
        } else {
            Speed::Same(ratio)
        }
    }
}

/// The median of `x` (the upper one of an even count; NaN when empty).
fn median(x: &[f64]) -> f64 {
    let mut x = x.to_vec();
    x.sort_by(f64::total_cmp);
    x.get(x.len() / 2).copied().unwrap_or(f64::NAN)
}

impl Speed {
    /// The comparison in words, against `what`: "1.58x faster than naive", "1.40x slower than
    /// naive", "as fast as naive (0.97x)" where the medians agree within 10%, and where they
    /// differ more but not every run agrees, "not clearly faster or slower than naive (median
    /// ratio 1.74x, but the runs disagree)": a noisy adapter, such as a CPU's, where a ratio
    /// printed beside "as fast" read as a contradiction.
    pub fn than(self, what: &str) -> String {
        match self {
            Speed::Faster(x) => format!("{x:.2}x faster than {what}"),
            Speed::Slower(x) => format!("{x:.2}x slower than {what}"),
            Speed::Same(x) if (1.0 / CLEAR..=CLEAR).contains(&x) => {
                format!("as fast as {what} ({x:.2}x)")
            }
            Speed::Same(x) => format!(
                "not clearly faster or slower than {what} (median ratio {x:.2}x, but the runs \
                 disagree)"
            ),
            Speed::OnCpu => format!("not compared with {what} on a CPU adapter"),
        }
    }
}

/// How a measured call is repeated in each timed run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeat {
    /// One call per timed run: for work whose result changes as it repeats (a histogram adds
    /// into its bins).
    Each,
    /// For work that leaves the same result however often it runs (a matmul overwrites C):
    /// after the first call, each timed submission holds copies of the call's steps back to
    /// back, enough to keep the GPU busy for about a millisecond (at most 64), and a run's time
    /// is their span over the copies. One launch at a time, a short kernel leaves the GPU idle
    /// between calls and the driver may lower its clock while it is timed (BENCHMARKS.md, "Warm
    /// up by time"); CUDA-event timing, as PyTorch's, is of back-to-back launches too. On a CPU
    /// adapter, and without GPU timestamps, one copy.
    BackToBack,
}

/// Seconds of back-to-back work before a measurement on `gpu` counts, decided before it starts
/// (what [`Gpu::measure`] warms up for): for a harness of its own, such as the bench's.
pub fn warm_up_seconds(gpu: &Gpu) -> f64 {
    gpu.warm_up_seconds()
}

/// The copies a [`Repeat::BackToBack`] measurement holds in each timed submission after a first
/// call that ran `seconds`.
pub fn copies_after(gpu: &Gpu, seconds: f64) -> u32 {
    gpu.copies_after(seconds)
}

/// Run `f` with every timed submission it makes on this thread holding `n` copies of its
/// launches back to back, each run's time their span over the copies: for a harness of its own
/// that times work which leaves the same result however often it runs, as
/// [`Repeat::BackToBack`] does. Work whose results accumulate (a histogram) would count `n`
/// times.
pub fn with_copies<R>(gpu: &Gpu, n: u32, f: impl FnOnce() -> R) -> R {
    gpu.with_copies(n, f)
}

impl Gpu {
    /// Seconds of back-to-back work before a measurement counts, decided before it starts. GPUs
    /// lower their clocks when idle and run slow until they have had a stretch of sustained
    /// kernel work; an upload or a read in between does not bring them back (BENCHMARKS.md, "Warm
    /// up by time"). So the warm-up tops the stretch of kernel work the GPU is in up to 1 s (all
    /// of it when none ran in the last 0.2 s, or none yet), and lasts at least 0.25 s (the
    /// tuner's trials, one bench case after another). Zero on CPU adapters.
    pub(crate) fn warm_up_seconds(&self) -> f64 {
        if self.is_cpu() {
            return 0.0;
        }
        warm_up_after(self.busy.lock().ok().and_then(|b| *b))
    }

    /// Count the GPU as idle for the next measurement's warm-up, whatever its last wait saw:
    /// after work that ran between long pauses (pipelines built one after another, each run once),
    /// the last wait was recent but the clocks had no sustained work to come back on. (Native
    /// only: the tuner's first runs on several threads are its one caller.)
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn count_as_idle(&self) {
        if let Ok(mut b) = self.busy.lock() {
            *b = None;
        }
    }

    /// Time `f`: one untimed call first (it builds the pipelines, and a driver with a cold shader
    /// cache may finish compiling them at their first dispatch, a time far beyond the kernel's),
    /// then calls back to back until the GPU has been busy for
    /// [`Gpu::warm_up_seconds`], then [`STEADY_RUNS`] timed calls: their median and spread.
    /// The warm-up is counted from the end of the first call, and a first call that took longer
    /// than the idle threshold (0.2 s: a pipeline compiled while the GPU waited) earns the idle
    /// warm-up. Counted from before it, a compile longer than the warm-up left none, and the
    /// runs were timed at whatever clock the idle GPU had fallen to, and a tune could record a
    /// slower tile as the winner (BENCHMARKS.md, "Warm up by time").
    pub fn measure<'a, R: 'a>(
        &'a self,
        repeat: Repeat,
        f: impl AsyncFnMut() -> Result<R> + 'a,
        seconds: impl Fn(&R) -> f64 + 'a,
    ) -> crate::Call<'a, Measured<R>> {
        crate::Call::new(async move { self.measure_copies(f, seconds, repeat).await })
    }

    /// The copies a back-to-back measurement ([`Repeat::BackToBack`]) holds in
    /// each timed submission after a first call that ran `seconds`: enough for about a
    /// millisecond, at most 64; 1 on a CPU adapter or without GPU timestamps.
    pub(crate) fn copies_after(&self, seconds: f64) -> u32 {
        if self.is_cpu() || self.clock() != Clock::GpuTimestamp {
            1
        } else {
            back_to_back_copies(seconds)
        }
    }

    /// Run `f` with every timed submission it makes on this thread holding `n` copies of its
    /// launches back to back, each run's time their span over the copies: for a harness of its
    /// own that times work which leaves the same result however often it runs (a matmul), as
    /// [`Repeat::BackToBack`] does. Work whose results accumulate (a histogram)
    /// would count `n` times.
    pub(crate) fn with_copies<R>(&self, n: u32, f: impl FnOnce() -> R) -> R {
        let _copies = copies(n);
        f()
    }

    /// Time `calls` calls side by side: `f(i)` is call `i`. Each is run once untimed (its
    /// pipelines), then all of them in turn until the GPU has been busy for
    /// [`Gpu::warm_up_seconds`], then rounds in which every call runs once, each round starting
    /// one call further on: at least [`STEADY_RUNS`], and more until they span
    /// [`SIDE_BY_SIDE_SECONDS`] (at most 256). Their measurements, in the order of `i`, pair
    /// round by round ([`Measured::against`] compares them with [`Speed::paired`]): two calls
    /// timed one after the other are two moments of an adapter whose speed may drift between
    /// them, a CPU's above all; within a round they share one.
    pub fn measure_side_by_side<'a, R: 'a>(
        &'a self,
        repeat: Repeat,
        calls: usize,
        f: impl AsyncFnMut(usize) -> Result<R> + 'a,
        seconds: impl Fn(&R) -> f64 + 'a,
    ) -> crate::Call<'a, Vec<Measured<R>>> {
        crate::Call::new(async move { self.measure_rounds(calls, f, seconds, repeat).await })
    }

    async fn measure_copies<R>(
        &self,
        mut f: impl AsyncFnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
        repeat: Repeat,
    ) -> Result<Measured<R>> {
        let mut one = self
            .measure_rounds(1, async |_| f().await, seconds, repeat)
            .await?;
        Ok(one.remove(0))
    }

    /// The warm-up and the timed rounds of [`Gpu::measure_side_by_side`] (one call:
    /// [`Gpu::measure`]).
    async fn measure_rounds<R>(
        &self,
        calls: usize,
        mut f: impl AsyncFnMut(usize) -> Result<R>,
        seconds: impl Fn(&R) -> f64,
        repeat: Repeat,
    ) -> Result<Vec<Measured<R>>> {
        let back_to_back = repeat == Repeat::BackToBack;
        let before = self.warm_up_seconds();
        let first = Instant::now();
        let mut copies_of = Vec::with_capacity(calls);
        for i in 0..calls {
            let once = f(i).await?;
            copies_of.push(if back_to_back {
                self.copies_after(seconds(&once))
            } else {
                1
            });
        }
        let warm_up = if first.elapsed().as_secs_f64() > IDLE_SECONDS && !self.is_cpu() {
            IDLE_WARM_UP_SECONDS
        } else {
            before
        };
        let start = Instant::now();
        while calls > 0 && start.elapsed().as_secs_f64() < warm_up {
            for (i, &n) in copies_of.iter().enumerate() {
                let _copies = copies(n);
                f(i).await?;
            }
        }
        let mut runs: Vec<Vec<(f64, R)>> =
            (0..calls).map(|_| Vec::with_capacity(MAX_ROUNDS)).collect();
        let timed = Instant::now();
        let mut round = 0;
        while round < STEADY_RUNS
            || (calls > 1
                && round < MAX_ROUNDS
                && timed.elapsed().as_secs_f64() < SIDE_BY_SIDE_SECONDS)
        {
            for j in 0..calls {
                let i = (round + j) % calls;
                let _copies = copies(copies_of[i]);
                let r = f(i).await?;
                runs[i].push((seconds(&r), r));
            }
            round += 1;
        }
        let batch = (calls > 1).then(|| NEXT_BATCH.fetch_add(1, Ordering::Relaxed));
        let cpu = self.is_cpu();
        Ok(runs
            .into_iter()
            .map(|runs| Measured::of(runs, batch, cpu))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_copies_fill_about_a_millisecond() {
        assert_eq!(back_to_back_copies(83e-6), 13);
        assert_eq!(back_to_back_copies(1e-3), 1);
        assert_eq!(back_to_back_copies(4e-3), 1);
        assert_eq!(back_to_back_copies(1e-7), MAX_COPIES);
        assert_eq!(back_to_back_copies(0.0), 1);
        assert_eq!(back_to_back_copies(f64::NAN), 1);
    }

    #[test]
    fn the_warm_up_tops_the_stretch_of_kernel_work_up_to_a_second() {
        let ago = |s: f64| Instant::now() - std::time::Duration::from_secs_f64(s);
        let busy = |since: f64, last: f64| {
            warm_up_after(Some(Busy {
                since: ago(since),
                last: ago(last),
            }))
        };
        // No kernel work yet, or none for over 0.2 s: the whole second.
        assert_eq!(warm_up_after(None), IDLE_WARM_UP_SECONDS);
        assert_eq!(busy(5.0, 0.3), IDLE_WARM_UP_SECONDS);
        // Kernels for 0.1 s after an idle gap (a fill, a first call): the rest of the second.
        let rest = busy(0.1, 0.05);
        assert!((0.85..=0.9).contains(&rest), "{rest}");
        // Kernels for seconds (one bench case after another): the shortest warm-up.
        assert_eq!(busy(5.0, 0.0), BUSY_WARM_UP_SECONDS);
    }

    #[test]
    fn a_paired_speed_up_needs_both_halves_of_the_rounds() {
        // Drift between rounds (the second runs at half speed) is no difference.
        let a = [1.0, 2.0, 1.0, 1.1, 0.9, 1.0, 1.3, 1.0];
        let twice: Vec<f64> = a.iter().map(|x| 2.0 * x).collect();
        assert!(matches!(Speed::paired(&a, &twice), Speed::Faster(x) if (x - 2.0).abs() < 1e-9));
        assert!(matches!(Speed::paired(&twice, &a), Speed::Slower(x) if (x - 2.0).abs() < 1e-9));
        // The same seconds measured apart: their spreads overlap.
        assert!(matches!(
            Speed::of((1.0, 0.9, 2.0), (2.0, 1.8, 4.0)),
            Speed::Same(_)
        ));
        // One round in four the other way still leaves three in four.
        let mut one = twice.clone();
        one[1] = 0.9 * a[1];
        assert!(matches!(Speed::paired(&a, &one), Speed::Faster(_)));
        // A regime that holds for half of the rounds: 1.6x slower, then 1.6x faster.
        let regimes: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| if i < 4 { 1.6 * x } else { x / 1.6 })
            .collect();
        assert!(matches!(Speed::paired(&a, &regimes), Speed::Same(_)));
        // Two thirds of the rounds faster: the whole says so, the first half does not.
        let mostly: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(i, x)| if i < 3 { 0.8 * x } else { 1.6 * x })
            .collect();
        assert!(matches!(Speed::paired(&a, &mostly), Speed::Same(x) if (x - 1.6).abs() < 1e-9));
        assert_eq!(
            Speed::paired(&a, &[1.0, 2.1, 0.98, 1.1, 0.95, 1.0, 1.3, 1.0]),
            Speed::Same(1.0)
        );
    }
}
