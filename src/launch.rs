//! Launching kernels and timing them: GPU timestamp queries where the adapter has them, the wall
//! clock around submit-and-wait elsewhere; the caller learns which one it got.

use crate::dispatch::Dispatch;
use crate::gpu::Gpu;
use crate::pipeline::Shader;
use crate::{Error, Result};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

/// Which clock measured a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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

/// One dispatch: a pipeline, its bind group and its grid.
pub struct Step {
    pipeline: Arc<wgpu::ComputePipeline>,
    bind_group: wgpu::BindGroup,
    dispatch: Dispatch,
}

impl Step {
    /// Bind `buffers` (binding number, buffer) to group 0 of `pipeline`.
    pub fn new(
        gpu: &Gpu,
        pipeline: &Arc<wgpu::ComputePipeline>,
        buffers: &[(u32, &wgpu::Buffer)],
        dispatch: Dispatch,
    ) -> Result<Step> {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|(binding, b)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bind_group = gpu.scoped("binding buffers", || {
            gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &layout,
                entries: &entries,
            })
        })?;
        Ok(Step {
            pipeline: pipeline.clone(),
            bind_group,
            dispatch,
        })
    }
}

impl Gpu {
    /// Seconds of back-to-back work before a measurement counts. GPUs lower their clocks after a
    /// few idle seconds (while the host prepares data, say) and one short kernel does not raise
    /// them again: on the H100 the SM clock fell from 1980 to 345 MHz after about 4 s and a vec4
    /// copy measured 1,520 GB/s instead of 2,790 (BENCHMARKS.md). Zero on CPU adapters.
    pub fn warm_up_seconds(&self) -> f64 {
        if self.is_cpu() {
            0.0
        } else {
            0.25
        }
    }

    /// Run `f` back to back until the GPU has been busy for [`Gpu::warm_up_seconds`] (and at
    /// least three times), then return the median of the last three runs by `seconds`. On a CPU
    /// adapter, where clocks do not ramp, one run.
    pub fn steady<R>(
        &self,
        mut f: impl FnMut() -> Result<R>,
        seconds: impl Fn(&R) -> f64,
    ) -> Result<R> {
        if self.is_cpu() {
            return f();
        }
        let start = Instant::now();
        let mut last: std::collections::VecDeque<R> = std::collections::VecDeque::with_capacity(4);
        loop {
            if last.len() == 3 {
                last.pop_front();
            }
            last.push_back(f()?);
            if last.len() == 3 && start.elapsed().as_secs_f64() >= self.warm_up_seconds() {
                break;
            }
        }
        let mut v: Vec<R> = last.into_iter().collect();
        v.sort_by(|a, b| seconds(a).total_cmp(&seconds(b)));
        Ok(v.swap_remove(1))
    }

    /// Launch `count` workgroups of `entry` (folded into 2-D by [`Dispatch::fold`]) with
    /// `buffers` bound (binding number, buffer) to group 0, and time it.
    pub fn launch(
        &self,
        shader: &Shader,
        entry: &str,
        constants: &[(String, f64)],
        buffers: &[(u32, &wgpu::Buffer)],
        count: u64,
    ) -> Result<Timing> {
        let dispatch = Dispatch::fold(&shader.name, count, self.limits().workgroups_per_dimension)?;
        let pipeline = self.pipeline(shader, entry, constants)?;
        let step = Step::new(self, &pipeline, buffers, dispatch)?;
        self.execute(&[step])
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
    pub fn execute(&self, steps: &[Step]) -> Result<Timing> {
        let timestamps = (self.clock() == Clock::GpuTimestamp).then(|| {
            let set = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("tilekit timing"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamps readback"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            (set, resolve, staging)
        });
        let start = Instant::now();
        self.scoped("running kernels", || {
            let mut enc = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("tilekit"),
                    timestamp_writes: timestamps.as_ref().map(|(set, _, _)| {
                        wgpu::ComputePassTimestampWrites {
                            query_set: set,
                            beginning_of_pass_write_index: Some(0),
                            end_of_pass_write_index: Some(1),
                        }
                    }),
                });
                for s in steps {
                    pass.set_pipeline(&s.pipeline);
                    pass.set_bind_group(0, &s.bind_group, &[]);
                    pass.dispatch_workgroups(s.dispatch.x, s.dispatch.y, 1);
                }
            }
            if let Some((set, resolve, staging)) = &timestamps {
                enc.resolve_query_set(set, 0..2, resolve, 0);
                enc.copy_buffer_to_buffer(resolve, 0, staging, 0, 16);
            }
            self.queue.submit([enc.finish()]);
        })?;
        self.wait()?;
        let wall = start.elapsed().as_secs_f64();
        match timestamps {
            None => Ok(Timing {
                seconds: wall,
                clock: Clock::WallClock,
            }),
            Some((_, _, staging)) => {
                let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
                staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                    let _ = tx.send(r);
                });
                self.wait()?;
                if !matches!(pollster::block_on(rx.receive()), Some(Ok(()))) {
                    return Err(Error::Gpu {
                        context: "reading timestamps".into(),
                        message: "map failed".into(),
                    });
                }
                let ticks: [u64; 2] = {
                    let view = staging
                        .slice(..)
                        .get_mapped_range()
                        .map_err(|e| Error::Gpu {
                            context: "reading timestamps".into(),
                            message: e.to_string(),
                        })?;
                    bytemuck::pod_read_unaligned(&view[..16])
                };
                staging.unmap();
                let period = self.queue.get_timestamp_period() as f64;
                let seconds = ticks[1].wrapping_sub(ticks[0]) as f64 * period * 1e-9;
                // A driver that returns zeros or garbage falls back to the wall clock.
                if seconds > 0.0 && seconds <= wall * 1.5 + 1e-3 {
                    Ok(Timing {
                        seconds,
                        clock: Clock::GpuTimestamp,
                    })
                } else {
                    Ok(Timing {
                        seconds: wall,
                        clock: Clock::WallClock,
                    })
                }
            }
        }
    }

    /// Copy `bytes` from one buffer to another (outside any timing).
    pub fn copy_buffer(&self, src: &wgpu::Buffer, dst: &wgpu::Buffer, bytes: u64) -> Result<()> {
        self.scoped("copying a buffer", || {
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(src, 0, dst, 0, bytes.div_ceil(4) * 4);
            self.queue.submit([enc.finish()]);
        })?;
        self.wait()
    }
}
