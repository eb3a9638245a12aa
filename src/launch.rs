//! Launching kernels and timing them: GPU timestamp queries where the adapter has them, the wall
//! clock around submit-and-wait elsewhere; the caller learns which one it got. Every launch of a
//! call goes into one submission with its readback, and one wait (with the GPU timeout).

use crate::dispatch::Dispatch;
use crate::gpu::Gpu;
use crate::pipeline::Shader;
use crate::pool::{Bind, BindKey, Timer};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use web_time::Instant;

/// A boxed future that need not be `Send` (in a browser nothing is): what a trait object's
/// async method returns.
pub(crate) type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

/// Which clock measured a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clock {
    /// Timestamp queries at the start and end of the compute pass (GPU time only).
    GpuTimestamp,
    /// Wall clock around submit and wait (includes submission overhead).
    WallClock,
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Clock::GpuTimestamp => "GPU timestamps",
            Clock::WallClock => "wall clock",
        })
    }
}

/// How long one run took, and by which clock.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// Seconds.
    pub seconds: f64,
    /// The clock that measured it.
    pub clock: Clock,
}

/// Timed calls per [`Gpu::measure`] after the warm-up.
pub const STEADY_RUNS: usize = 5;

/// Seconds without GPU work after which the clocks count as idle ([`Gpu::warm_up_seconds`]).
const IDLE_SECONDS: f64 = 0.2;

/// The warm-up after an idle stretch ([`Gpu::warm_up_seconds`]).
const IDLE_WARM_UP_SECONDS: f64 = 1.0;

/// How long each timed submission of a call measured back to back keeps the GPU busy
/// ([`Gpu::measure_back_to_back_async`]).
const BUSY_SECONDS: f64 = 1e-3;

/// The most copies of a call one timed submission holds.
const MAX_COPIES: u32 = 64;

thread_local! {
    /// Copies of its steps that each timed submission on this thread encodes back to back
    /// ([`Gpu::measure_back_to_back_async`]); 1 outside it.
    static COPIES: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

/// Restores the number of copies in force before [`copies`] when dropped.
pub(crate) struct CopiesGuard(u32);

impl Drop for CopiesGuard {
    fn drop(&mut self) {
        let _ = COPIES.try_with(|c| c.set(self.0));
    }
}

/// Encode `n` copies of the steps in each timed submission on this thread until the guard is
/// dropped.
pub(crate) fn copies(n: u32) -> CopiesGuard {
    CopiesGuard(COPIES.with(|c| c.replace(n.max(1))))
}

/// Copies of a call that ran `seconds` that keep the GPU busy for [`BUSY_SECONDS`] (at least 1,
/// at most [`MAX_COPIES`]).
pub(crate) fn back_to_back_copies(seconds: f64) -> u32 {
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

/// How one timed run compares with another, said so that a rerun says the same: "1.8x faster"
/// or "1.4x slower" only when the two spreads do not overlap and the medians differ by more
/// than 10%; otherwise "the same within the spread".
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
        if a.2 < b.1 && ratio > 1.1 {
            Speed::Faster(ratio)
        } else if a.1 > b.2 && ratio < 1.0 / 1.1 {
            Speed::Slower(1.0 / ratio)
        } else {
            Speed::Same(ratio)
        }
    }
}

impl Speed {
    /// The comparison in words, against `what`: "1.58x faster than naive", "1.40x slower than
    /// naive", "as fast as naive within the spread (0.97x)".
    pub fn than(self, what: &str) -> String {
        match self {
            Speed::Faster(x) => format!("{x:.2}x faster than {what}"),
            Speed::Slower(x) => format!("{x:.2}x slower than {what}"),
            Speed::Same(x) => format!("as fast as {what} within the spread ({x:.2}x)"),
        }
    }
}

/// One dispatch: a pipeline, its bind group and its grid.
pub(crate) struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    bind_group: wgpu::BindGroup,
    /// Group 1: the loop-cap flag of a learner's watched shader.
    flag_group: Option<wgpu::BindGroup>,
    dispatch: Dispatch,
}

impl Step {
    /// Bind `buffers` (binding number, buffer) to group 0 of `pipeline`. The bind group is
    /// cached by the pipeline and the buffers' identities, so a repeated call builds none.
    pub(crate) async fn new(
        gpu: &Gpu,
        pipeline: &Arc<wgpu::ComputePipeline>,
        buffers: &[(u32, Bind<'_>)],
        dispatch: Dispatch,
    ) -> Result<Step> {
        let key = buffers.iter().all(|(_, b)| b.id != 0).then(|| BindKey {
            pipeline: Arc::as_ptr(pipeline) as usize,
            entries: buffers.iter().map(|(i, b)| (*i, b.id)).collect(),
        });
        let cached = key.as_ref().and_then(|k| gpu.pools.inner.bind_group(k));
        let bind_group = match cached {
            Some(b) => b,
            None => {
                let layout = pipeline.get_bind_group_layout(0);
                let entries: Vec<wgpu::BindGroupEntry> = buffers
                    .iter()
                    .map(|(binding, b)| wgpu::BindGroupEntry {
                        binding: *binding,
                        resource: b.buffer.as_entire_binding(),
                    })
                    .collect();
                let b = gpu
                    .scoped("binding buffers", || {
                        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: None,
                            layout: &layout,
                            entries: &entries,
                        })
                    })
                    .await?;
                if let Some(k) = key {
                    gpu.pools.inner.keep_bind_group(k, b.clone());
                }
                b
            }
        };
        // A learner's watched shader: its loop-cap flag as group 1.
        let flag_group = match crate::pipeline::watch_flag(pipeline) {
            Some(flag) => Some(
                gpu.scoped("binding the loop-cap flag", || {
                    gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("loop-cap flag"),
                        layout: &pipeline.get_bind_group_layout(1),
                        entries: &[wgpu::BindGroupEntry {
                            binding: 0,
                            resource: flag.as_entire_binding(),
                        }],
                    })
                })
                .await?,
            ),
            None => None,
        };
        Ok(Step {
            pipeline: pipeline.clone(),
            bind_group,
            flag_group,
            dispatch,
        })
    }
}

fn map_read(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
) -> futures_intrusive::channel::shared::OneshotReceiver<Result<(), wgpu::BufferAsyncError>> {
    let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
    let _ = gpu;
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    rx
}

async fn mapped(
    rx: futures_intrusive::channel::shared::OneshotReceiver<Result<(), wgpu::BufferAsyncError>>,
    what: &str,
) -> Result<()> {
    // Natively the wait before this completed the submission, so the callback has run (or was
    // dropped with the device, which closes the channel) and this returns at once; in a browser
    // the mapping resolves on its event loop.
    match rx.receive().await {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Gpu {
            context: what.to_string(),
            message: e.to_string(),
        }),
        _ => Err(Error::Gpu {
            context: what.to_string(),
            message: "the buffer was not mapped after the submission completed".into(),
        }),
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

    /// One step: `count` workgroups of `entry` (folded into 2-D by [`Dispatch::fold`]) with
    /// `buffers` bound (binding number, buffer) to group 0.
    pub(crate) async fn step(
        &self,
        shader: &Shader,
        entry: &str,
        constants: &[(String, f64)],
        buffers: &[(u32, Bind<'_>)],
        count: u64,
    ) -> Result<Step> {
        let dispatch = Dispatch::fold(
            &shader.name,
            count,
            self.limits().max_compute_workgroups_per_dimension,
        )?;
        let pipeline = self.pipeline(shader, entry, constants).await?;
        Step::new(self, &pipeline, buffers, dispatch).await
    }

    /// The step of a planned kernel: `plan`'s constants and `plan`'s grid ([`Plan::dispatch`],
    /// already folded into 2-D), so that what runs is what the plan says.
    ///
    /// [`Plan::dispatch`]: crate::plan::Plan::dispatch
    pub(crate) async fn planned_step(
        &self,
        shader: &Shader,
        entry: &str,
        plan: &crate::plan::Plan,
        buffers: &[(u32, Bind<'_>)],
    ) -> Result<Step> {
        let pipeline = self.pipeline(shader, entry, &plan.constants()).await?;
        Step::new(self, &pipeline, buffers, plan.dispatch).await
    }

    /// Launch one step and time it.
    pub(crate) async fn launch(
        &self,
        shader: &Shader,
        entry: &str,
        constants: &[(String, f64)],
        buffers: &[(u32, Bind<'_>)],
        count: u64,
    ) -> Result<Timing> {
        let step = self.step(shader, entry, constants, buffers, count).await?;
        self.execute(&[step]).await
    }

    /// Whether runs are timed with GPU timestamps.
    pub fn clock(&self) -> Clock {
        if self.has(wgpu::Features::TIMESTAMP_QUERY) {
            Clock::GpuTimestamp
        } else {
            Clock::WallClock
        }
    }

    /// Run `steps` in order in one compute pass (wgpu makes each dispatch's writes visible to the
    /// next), wait for them, and time them.
    pub(crate) async fn execute(&self, steps: &[Step]) -> Result<Timing> {
        Ok(self.submit::<u8>(steps, None, true).await?.0)
    }

    /// Run `steps` and read `bytes` of `buffer` back as elements of `T`, in one submission and
    /// one wait, copied once out of the mapped staging
    /// buffer (a second copy from bytes into `T`s cost about as much as the readback itself for
    /// a 1 MiB result on the H100). `timed: false` skips the timestamp queries (the timing is then
    /// the wall clock), for a call whose caller wants the answer, not the time: on the H100 the
    /// queries' resolve, copy and second mapping cost a 2^20 sum's call 12–14 µs (BENCHMARKS.md).
    pub(crate) async fn execute_and_read_as<T: bytemuck::Pod>(
        &self,
        steps: &[Step],
        buffer: &wgpu::Buffer,
        bytes: u64,
        timed: bool,
    ) -> Result<(Timing, Vec<T>)> {
        let (t, data) = self
            .submit::<T>(steps, Some((buffer, bytes)), timed)
            .await?;
        Ok((t, data.unwrap_or_default()))
    }

    fn timer(&self) -> Timer {
        if let Some(t) = self
            .pools
            .inner
            .timers
            .lock()
            .ok()
            .and_then(|mut t| t.pop())
        {
            return t;
        }
        Timer {
            set: self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("tilekit timing"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps readback"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
        }
    }

    async fn submit<T: bytemuck::Pod>(
        &self,
        steps: &[Step],
        read: Option<(&wgpu::Buffer, u64)>,
        timed: bool,
    ) -> Result<(Timing, Option<Vec<T>>)> {
        let timer = (timed && self.clock() == Clock::GpuTimestamp && !steps.is_empty())
            .then(|| self.timer());
        // Copies of the steps back to back, in a timed submission only (their span over the
        // copies is the run's time; see Gpu::measure_back_to_back_async).
        let n_copies = if timer.is_some() {
            COPIES.with(|c| c.get())
        } else {
            1
        };
        let copy = read.map(|(_, bytes)| bytes.div_ceil(4) * 4);
        let staging = copy.map(|c| self.pools.inner.staging(&self.device, c.max(4)));
        let start = Instant::now();
        let index = self
            .scoped("running kernels", || {
                let mut enc = self.device.create_command_encoder(&Default::default());
                if !steps.is_empty() {
                    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some("tilekit"),
                        timestamp_writes: timer.as_ref().map(|t| {
                            wgpu::ComputePassTimestampWrites {
                                query_set: &t.set,
                                beginning_of_pass_write_index: Some(0),
                                end_of_pass_write_index: Some(1),
                            }
                        }),
                    });
                    for _ in 0..n_copies {
                        for s in steps {
                            pass.set_pipeline(&s.pipeline);
                            pass.set_bind_group(0, &s.bind_group, &[]);
                            if let Some(g) = &s.flag_group {
                                pass.set_bind_group(1, g, &[]);
                            }
                            pass.dispatch_workgroups(s.dispatch.x, s.dispatch.y, 1);
                        }
                    }
                }
                if let Some(t) = &timer {
                    enc.resolve_query_set(&t.set, 0..2, &t.resolve, 0);
                    enc.copy_buffer_to_buffer(&t.resolve, 0, &t.staging, 0, 16);
                }
                if let (Some((src, _)), Some(dst), Some(c)) = (read, &staging, copy) {
                    if c > 0 {
                        enc.copy_buffer_to_buffer(src, 0, dst, 0, c);
                    }
                }
                self.submit_one(enc.finish())
            })
            .await?;
        let timer_rx = timer.as_ref().map(|t| map_read(self, &t.staging));
        let data_rx = staging.as_ref().map(|s| map_read(self, s));
        self.wait_for("the kernels", Some(index)).await?;
        let wall = start.elapsed().as_secs_f64();
        // A back end that runs the work inside `submit` (wgpu's GL back end on llvmpipe) cannot
        // be interrupted; the call still ends in the timeout's error, late rather than never.
        if wall > self.timeout.as_secs_f64() {
            return Err(Error::Timeout {
                what: "the kernels".into(),
                seconds: self.timeout.as_secs_f64(),
            });
        }
        let data = match (staging, data_rx, read) {
            (Some(s), Some(rx), Some((_, bytes))) => {
                mapped(rx, "reading a buffer back").await?;
                let out = {
                    let view = s.slice(..).get_mapped_range().map_err(|e| Error::Gpu {
                        context: "reading a buffer back".into(),
                        message: e.to_string(),
                    })?;
                    let raw = &view[..bytes as usize];
                    match bytemuck::try_cast_slice::<u8, T>(raw) {
                        Ok(elems) => elems.to_vec(),
                        Err(_) => bytemuck::pod_collect_to_vec::<u8, T>(raw),
                    }
                };
                s.unmap();
                self.pools.inner.staging_back(s);
                Some(out)
            }
            _ => None,
        };
        let wall_timing = Timing {
            seconds: wall,
            clock: Clock::WallClock,
        };
        let timing = match (timer, timer_rx) {
            (Some(t), Some(rx)) => {
                mapped(rx, "reading timestamps").await?;
                let ticks: [u64; 2] = {
                    let view = t
                        .staging
                        .slice(..)
                        .get_mapped_range()
                        .map_err(|e| Error::Gpu {
                            context: "reading timestamps".into(),
                            message: e.to_string(),
                        })?;
                    bytemuck::pod_read_unaligned(&view[..16])
                };
                t.staging.unmap();
                if let Ok(mut pool) = self.pools.inner.timers.lock() {
                    if pool.len() < crate::pool::MAX_TIMERS {
                        pool.push(t);
                    }
                }
                let period = self.queue.get_timestamp_period() as f64;
                let span = ticks[1].wrapping_sub(ticks[0]) as f64 * period * 1e-9;
                let seconds = span / n_copies as f64;
                // A driver that returns zeros or garbage falls back to the wall clock.
                if seconds > 0.0 && seconds <= wall * 1.5 + 1e-3 {
                    Timing {
                        seconds,
                        clock: Clock::GpuTimestamp,
                    }
                } else {
                    wall_timing
                }
            }
            _ => wall_timing,
        };
        Ok((timing, data))
    }

    /// Copy `bytes` from one buffer to another (outside any timing).
    pub(crate) async fn copy_buffer(
        &self,
        src: &wgpu::Buffer,
        dst: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<()> {
        let index = self
            .scoped("copying a buffer", || {
                let mut enc = self.device.create_command_encoder(&Default::default());
                enc.copy_buffer_to_buffer(src, 0, dst, 0, bytes.div_ceil(4) * 4);
                self.submit_one(enc.finish())
            })
            .await?;
        self.wait_for("a buffer copy", Some(index)).await
    }
}

impl Gpu {
    /// How full the pools are now (each is bounded: see [`crate::pool`]).
    pub fn pool_stats(&self) -> crate::pool::PoolStats {
        self.pools.inner.stats()
    }

    /// A uniform block holding `value` (kernel parameters), shared with every call that passes
    /// the same bytes.
    pub(crate) fn uniform<T: bytemuck::Pod>(&self, value: &T) -> crate::pool::Uniform {
        self.pools
            .inner
            .uniform(&self.device, bytemuck::bytes_of(value))
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
