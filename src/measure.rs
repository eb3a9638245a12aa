//! Measuring a call: a warm-up long enough for the GPU's clock to come back from idle, then the
//! median and spread of several timed runs (each timed by [`crate::launch`]), one launch at a time
//! or, for work that leaves the same result however often it runs, copies of the call back to
//! back; and how two measurements compare ([`Speed`]).

use crate::gpu::Gpu;
use crate::launch::{copies, Clock};
use crate::Result;
use web_time::Instant;

/// Timed calls per [`Gpu::measure`] after the warm-up.
pub const STEADY_RUNS: usize = 5;

/// Seconds without GPU work after which the clocks count as idle ([`Gpu::warm_up_seconds`]).
pub(crate) const IDLE_SECONDS: f64 = 0.2;

/// The warm-up after an idle stretch ([`Gpu::warm_up_seconds`]).
const IDLE_WARM_UP_SECONDS: f64 = 1.0;

/// How long each timed submission of a call measured back to back keeps the GPU busy
/// ([`Gpu::measure_back_to_back_async`]).
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
}

impl<R> Measured<R> {
    /// How this run compares with `other` (see [`Speed`]).
    pub fn against<S>(&self, other: &Measured<S>) -> Speed {
        Speed::of(
            (self.median, self.min, self.max),
            (other.median, other.min, other.max),
        )
    }
}

/// The factor by which two medians must differ before a speed-up or a slow-down is claimed.
const CLEAR: f64 = 1.1;

/// How one timed run compares with another, said so that a rerun says the same: "1.8x faster"
/// or "1.4x slower" only when the two spreads do not overlap and the medians differ by more
/// than 10%; otherwise no difference the measurement can tell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// Faster by this factor (> 1).
    Faster(f64),
    /// Slower by this factor (> 1).
    Slower(f64),
    /// No difference the measurement can tell; the ratio of the medians.
    Same(f64),
}

impl Speed {
    /// Compare (median, min, max) seconds of `a` with those of `b`.
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
}

impl Speed {
    /// The comparison in words, against `what`: "1.58x faster than naive", "1.40x slower than
    /// naive", "as fast as naive (0.97x)" where the medians agree within 10%, and where they
    /// differ more but the spreads overlap, "not clearly faster or slower than naive (median
    /// ratio 1.74x; the spreads overlap)": a noisy adapter, such as a CPU's, where a
    /// ratio printed beside "as fast" read as a contradiction.
    pub fn than(self, what: &str) -> String {
        match self {
            Speed::Faster(x) => format!("{x:.2}x faster than {what}"),
            Speed::Slower(x) => format!("{x:.2}x slower than {what}"),
            Speed::Same(x) if (1.0 / CLEAR..=CLEAR).contains(&x) => {
                format!("as fast as {what} ({x:.2}x)")
            }
            Speed::Same(x) => format!(
                "not clearly faster or slower than {what} (median ratio {x:.2}x; the spreads \
                 overlap)"
            ),
        }
    }
}

impl Gpu {
    /// Seconds of back-to-back work before a measurement counts, decided before it starts. GPUs
    /// lower their clocks when idle and raise them only after a stretch of sustained work: on the
    /// H100 the SM clock fell from 1980 to 345 MHz within about 1.5 s of idling, and a 1 GiB sum
    /// then ran 0.3 s of back-to-back calls at 1.75 TB/s before the clock came back and it ran at
    /// 3.05 (BENCHMARKS.md, "the 1 GiB sum": a warm-up of 0.25 s measured the slow clock). So 1 s
    /// after an idle stretch (over 0.2 s since the GPU last finished work, or none yet), 0.25 s
    /// when it has just been busy (the tuner's trials, one bench case after another). Zero on CPU
    /// adapters.
    pub fn warm_up_seconds(&self) -> f64 {
        if self.is_cpu() {
            return 0.0;
        }
        let idle = self
            .last_work
            .lock()
            .ok()
            .and_then(|t| *t)
            .is_none_or(|t| t.elapsed().as_secs_f64() > IDLE_SECONDS);
        if idle {
            IDLE_WARM_UP_SECONDS
        } else {
            0.25
        }
    }

    /// Count the GPU as idle for the next measurement's warm-up, whatever its last wait saw:
    /// after work that ran between long pauses (pipelines built one after another, each run once),
    /// the last wait was recent but the clocks had no sustained work to come back on. (Native
    /// only: the tuner's first runs on several threads are its one caller.)
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn count_as_idle(&self) {
        if let Ok(mut t) = self.last_work.lock() {
            *t = None;
        }
    }

    /// Time `f`: one untimed call first (it builds the pipelines, and a driver with a cold shader
    /// cache may finish compiling them at their first dispatch: 1.44 s was once reported for a
    /// 3 ms matmul), then calls back to back until the GPU has been busy for
    /// [`Gpu::warm_up_seconds`], then [`STEADY_RUNS`] timed calls: their median and spread.
    /// The warm-up is counted from the end of the first call, and a first call that took longer
    /// than the idle threshold (0.2 s: a pipeline compiled while the GPU waited) earns the idle
    /// warm-up. Counted from before it, a compile longer than the warm-up left none, and the
    /// runs were timed at whatever clock the idle GPU had fallen to (in a `tilekit tune` on the
    /// H100 the cooperative kernel's first tile measured 987 µs at 4096³ and 1126 µs at 4095³,
    /// 555–605 warm, and a slower tile was recorded as the winner; BENCHMARKS.md, 2026-11-24).
    pub async fn measure_async<R>(
        &self,
        f: impl AsyncFnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
    ) -> Result<Measured<R>> {
        self.measure_copies(f, seconds, false).await
    }

    /// [`Gpu::measure_async`] for a call whose work leaves the same result however often it
    /// runs (a matmul overwrites C): after the first call, each timed submission holds copies of
    /// the call's steps back to back, enough to keep the GPU busy for about a millisecond (at
    /// most 64), and a run's time is their span over the copies. One launch at a time, a short
    /// kernel leaves the GPU idle between calls and the driver may lower its clock while it is
    /// timed: on the H100 the SM clock fell to 1065–1440 MHz during a bench case of an 83 µs
    /// product, which then measured 128–192 µs (BENCHMARKS.md, 2026-11-25). CUDA-event timing, as
    /// PyTorch's, is of back-to-back launches too. On a CPU adapter, and without GPU timestamps,
    /// one copy.
    pub async fn measure_back_to_back_async<R>(
        &self,
        f: impl AsyncFnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
    ) -> Result<Measured<R>> {
        self.measure_copies(f, seconds, true).await
    }

    /// The copies a back-to-back measurement ([`Gpu::measure_back_to_back_async`]) holds in
    /// each timed submission after a first call that ran `seconds`: enough for about a
    /// millisecond, at most 64; 1 on a CPU adapter or without GPU timestamps.
    pub fn copies_after(&self, seconds: f64) -> u32 {
        if self.is_cpu() || self.clock() != Clock::GpuTimestamp {
            1
        } else {
            back_to_back_copies(seconds)
        }
    }

    /// Run `f` with every timed submission it makes on this thread holding `n` copies of its
    /// launches back to back, each run's time their span over the copies: for a harness of its
    /// own that times work which leaves the same result however often it runs (a matmul), as
    /// [`Gpu::measure_back_to_back_async`] does. Work whose results accumulate (a histogram)
    /// would count `n` times.
    pub fn with_copies<R>(&self, n: u32, f: impl FnOnce() -> R) -> R {
        let _copies = copies(n);
        f()
    }

    async fn measure_copies<R>(
        &self,
        mut f: impl AsyncFnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
        back_to_back: bool,
    ) -> Result<Measured<R>> {
        let before = self.warm_up_seconds();
        let first = Instant::now();
        let once = f().await?;
        let n = if back_to_back {
            self.copies_after(seconds(&once))
        } else {
            1
        };
        let _copies = copies(n);
        let warm_up = if first.elapsed().as_secs_f64() > IDLE_SECONDS && !self.is_cpu() {
            IDLE_WARM_UP_SECONDS
        } else {
            before
        };
        let start = Instant::now();
        while start.elapsed().as_secs_f64() < warm_up {
            f().await?;
        }
        let mut runs: Vec<(f64, R)> = Vec::with_capacity(STEADY_RUNS);
        for _ in 0..STEADY_RUNS {
            let r = f().await?;
            runs.push((seconds(&r), r));
        }
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (min, max) = (runs[0].0, runs[STEADY_RUNS - 1].0);
        let (median, run) = runs.swap_remove(STEADY_RUNS / 2);
        Ok(Measured {
            run,
            median,
            min,
            max,
        })
    }

    /// Blocking [`Gpu::measure_async`], for a blocking `f`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn measure<R>(
        &self,
        mut f: impl FnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
    ) -> Result<Measured<R>> {
        crate::gpu::block_on(self.measure_async(async || f(), seconds))
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
}
