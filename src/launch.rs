//! Launching kernels and timing them: GPU timestamp queries where the adapter has them, the wall
//! clock around submit-and-wait elsewhere; the caller learns which one it got. Every launch of a
//! call goes into one submission with its readback, and one wait (with the GPU timeout); a timed
//! submission holds the copies of its launches that a back-to-back measurement ([`crate::measure`])
//! asks for. A queued call is recorded and submitted without a wait (`src/queue.rs`).

use crate::dispatch::Dispatch;
use crate::gpu::{Gpu, Waiting};
use crate::pipeline::Shader;
use crate::pool::{Bind, BindKey, Timer};
use crate::transfer::{map_mode, mapped};
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

impl Clock {
    /// The clock that times runs on `gpu`: its timestamps where it has them, else the wall clock.
    pub fn of(gpu: &Gpu) -> Clock {
        gpu.clock()
    }
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

thread_local! {
    /// Copies of its steps that each timed submission on this thread encodes back to back
    /// ([`crate::measure::Repeat::BackToBack`]); 1 outside it.
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

/// One dispatch: a pipeline, its bind group and its grid.
pub(crate) struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    bind_group: wgpu::BindGroup,
    /// Group 1: the loop-cap flag of a learner's watched shader.
    flag_group: Option<wgpu::BindGroup>,
    dispatch: Dispatch,
    /// The grid's depth in workgroups (z): 1 but for a kernel of one's own ([`Gpu::dispatch`]).
    depth: u32,
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
                        resource: match (b.exact, b.data.and_then(wgpu::BufferSize::new)) {
                            (true, Some(size)) => {
                                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer: b.buffer,
                                    offset: 0,
                                    size: Some(size),
                                })
                            }
                            _ => b.buffer.as_entire_binding(),
                        },
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
            depth: 1,
        })
    }

    /// The same step over `depth` layers of its grid (z).
    pub(crate) fn deep(self, depth: u32) -> Step {
        Step { depth, ..self }
    }
}

impl Gpu {
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
        self.planned_step_with(shader, entry, plan, &plan.constants(), buffers)
            .await
    }

    /// [`Gpu::planned_step`] with `constants` in place of the plan's: a kernel that sets one
    /// from what the plan decided (the cooperative kernel's loop, from the split's depth).
    pub(crate) async fn planned_step_with(
        &self,
        shader: &Shader,
        entry: &str,
        plan: &crate::plan::Plan,
        constants: &[(String, f64)],
        buffers: &[(u32, Bind<'_>)],
    ) -> Result<Step> {
        let pipeline = self.pipeline(shader, entry, constants).await?;
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

    /// Whether runs are timed with GPU timestamps ([`Clock::of`]).
    pub(crate) fn clock(&self) -> Clock {
        if self.has(wgpu::Features::TIMESTAMP_QUERY) {
            Clock::GpuTimestamp
        } else {
            Clock::WallClock
        }
    }

    /// Run `steps` in order in one compute pass (wgpu makes each dispatch's writes visible to the
    /// next), wait for them, and time them.
    pub(crate) async fn execute(&self, steps: &[Step]) -> Result<Timing> {
        self.execute_timed(steps, true).await
    }

    /// [`Gpu::execute`], with `timed: false` timed by the wall clock only (see
    /// [`Gpu::execute_and_read_as`]).
    pub(crate) async fn execute_timed(&self, steps: &[Step], timed: bool) -> Result<Timing> {
        Ok(self.submit::<u8>(steps, None, timed).await?.0)
    }

    /// Run `steps` and read `bytes` of `buffer` back as elements of `T`, in one submission and
    /// one wait, copied once out of the mapped staging
    /// buffer (a second copy from bytes into `T`s costs about as much as the readback itself).
    /// `timed: false` skips the timestamp queries (the timing is then the wall clock), for a call
    /// whose caller wants the answer, not the time: the queries' resolve, copy and second mapping
    /// are a large part of a small call (BENCHMARKS.md, "The per-call tax").
    pub(crate) async fn execute_and_read_as<T: bytemuck::Pod>(
        &self,
        steps: &[Step],
        buffer: &wgpu::Buffer,
        bytes: u64,
        timed: bool,
    ) -> Result<(Timing, Vec<T>)> {
        if crate::transfer::read_in_chunks(bytes) {
            // A large read: the kernels, then the buffer in chunks (crate::transfer).
            let t = self.submit::<u8>(steps, None, timed).await?.0;
            return Ok((t, self.read_in_chunks(buffer, bytes).await?));
        }
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
        // copies is the run's time; see Repeat::BackToBack).
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
                encode_pass(&mut enc, steps, timer.as_ref(), n_copies);
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
        let timer_rx = timer
            .as_ref()
            .map(|t| map_mode(&t.staging, wgpu::MapMode::Read));
        let data_rx = staging.as_ref().map(|s| map_mode(s, wgpu::MapMode::Read));
        self.wait_for("the kernels", Some(index), Waiting::Kernels)
            .await?;
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
        self.wait_for("a buffer copy", Some(index), Waiting::Transfer)
            .await
    }
}

impl Gpu {
    /// How full the pools and the pipeline cache are now (each pool is bounded: see
    /// [`crate::pool`]).
    pub fn stats(&self) -> crate::pool::PoolStats {
        crate::pool::PoolStats {
            pipelines: self.cached_pipelines(),
            ..self.pools.inner.stats()
        }
    }

    /// A uniform block holding `value` (kernel parameters), shared with every call that passes
    /// the same bytes.
    pub(crate) fn uniform<T: bytemuck::Pod>(&self, value: &T) -> crate::pool::Uniform {
        self.pools
            .inner
            .uniform(&self.device, bytemuck::bytes_of(value))
    }
}

/// `steps` in order in `pass`, `copies` times back to back.
pub(crate) fn encode_steps(pass: &mut wgpu::ComputePass<'_>, steps: &[Step], copies: u32) {
    for _ in 0..copies {
        for s in steps {
            pass.set_pipeline(&s.pipeline);
            pass.set_bind_group(0, &s.bind_group, &[]);
            if let Some(g) = &s.flag_group {
                pass.set_bind_group(1, g, &[]);
            }
            pass.dispatch_workgroups(s.dispatch.x, s.dispatch.y, s.depth);
        }
    }
}

/// `steps` in order in one compute pass of `enc` (wgpu makes each dispatch's writes visible to
/// the next), `copies` times back to back, timed by `timer`'s two timestamps where given.
fn encode_pass(enc: &mut wgpu::CommandEncoder, steps: &[Step], timer: Option<&Timer>, copies: u32) {
    if steps.is_empty() {
        return;
    }
    let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("tilekit"),
        timestamp_writes: timer.map(|t| wgpu::ComputePassTimestampWrites {
            query_set: &t.set,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }),
    });
    encode_steps(&mut pass, steps, copies);
}
