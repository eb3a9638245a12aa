//! `Gpu`: a device opened with its adapter's own limits (the `adapter` module picks the adapter),
//! and what every kernel shares.

pub use crate::limits::CoopConfig;
use crate::limits::{Caps, DeviceProfile, Limits};
use crate::pipeline::PipelineCache;
use crate::pool::Pools;
use crate::{Error, Result};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod adapter;
mod held;
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use adapter::block_on;
use adapter::pick_adapter;
#[cfg(not(target_arch = "wasm32"))]
pub use adapter::{adapter_summaries, adapters};
pub use adapter::{
    adapter_summaries_async, adapters_async, feature_name, matching, AdapterSummary,
    WANTED_FEATURES,
};
pub(crate) use held::Held;

/// Seconds without kernel work after which the GPU counts as idle ([`Gpu::warm_up_seconds`]).
pub(crate) const IDLE_SECONDS: f64 = 0.2;

/// A stretch of kernel work with no idle gap in it, as waits saw it: when the first of its
/// waits returned, and when the latest did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Busy {
    pub since: web_time::Instant,
    pub last: web_time::Instant,
}

/// What a wait waits for: kernels, which count as work for the warm-up, or a transfer, which
/// does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiting {
    Kernels,
    Transfer,
}

/// How to open a [`Gpu`].
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Part of the adapter's name (case-insensitive); `None` reads `TILEKIT_ADAPTER`, and if that
    /// is unset the best adapter is taken (discrete > integrated > virtual > software).
    pub adapter: Option<String>,
    /// Keep wgpu's shader runtime checks (bounds clamping, loop bounding). Off by default: they
    /// cost up to 40× in loops (BENCHMARKS.md), and tilekit's index arithmetic is tested at
    /// every edge size. `TILEKIT_CHECKED=1` turns them on.
    pub runtime_checks: bool,
    /// A [`DeviceProfile`] name; `None` detects it from the adapter.
    pub profile: Option<String>,
    /// Write [`crate::POISON`] into every output buffer before a kernel runs, so that an element
    /// a kernel forgets to write fails verification. The tests and the command line turn it on;
    /// the library leaves it off (one fill launch per output saved). `TILEKIT_POISON=1` turns it
    /// on.
    pub poison_outputs: bool,
    /// The longest any wait on the GPU may take before it becomes [`Error::Timeout`]; `None`
    /// reads `TILEKIT_TIMEOUT` (seconds), else 300 s.
    pub timeout: Option<Duration>,
    /// Open the device with WebGPU's default limits (16 KiB of workgroup memory, 256
    /// invocations per workgroup) rather than all the adapter has: what a browser gives most
    /// pages, so that what passes here passes there. The planner sizes every tile from them.
    pub webgpu_limits: bool,
}

/// `TILEKIT_TIMEOUT` in seconds, else 300 s; a value that is not a positive number of seconds
/// is an error (it was once ignored in silence).
fn timeout_from_env() -> Result<Duration> {
    match std::env::var("TILEKIT_TIMEOUT") {
        Err(_) => Ok(Duration::from_secs(300)),
        Ok(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| *v > 0.0 && *v <= 1e9)
            .map(Duration::from_secs_f64)
            .ok_or(Error::OutOfRange {
                what: "TILEKIT_TIMEOUT".into(),
                value: format!("{s:?}"),
                limit: "a number of seconds above 0".into(),
            }),
    }
}

/// An on/off environment variable: unset, empty, `0`, `false`, `no` or `off` is off; `1`,
/// `true`, `yes` or `on` is on (any case); anything else is an error naming the value (a typo
/// once turned a flag on in silence).
fn env_flag(name: &str) -> Result<bool> {
    let Ok(v) = std::env::var(name) else {
        return Ok(false);
    };
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "no" | "off" => Ok(false),
        "1" | "true" | "yes" | "on" => Ok(true),
        _ => Err(Error::OutOfRange {
            what: name.into(),
            value: format!("{v:?}"),
            limit: "1, true, yes or on to turn it on; 0, false, no, off or empty for off".into(),
        }),
    }
}

/// What a plan the [`Gpu`] holds was made for: the kernel, its problem size and the tile asked
/// for with who asked (`None`: the planner's choice).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    /// The kernel (a matmul variant's name).
    pub(crate) kernel: &'static str,
    /// Its problem size.
    pub(crate) sizes: [u64; 3],
    /// The tile asked for, and who asked.
    pub(crate) tile: Option<(crate::plan::Tile, crate::plan::ChosenBy)>,
}

/// A GPU ready for tilekit's kernels: the adapter, a device opened with the adapter's own limits
/// (not the downlevel defaults), the optional features tilekit uses, the device profile, the
/// pipeline cache and the pools that keep a call from allocating. `Gpu` is `Send + Sync`: share
/// one between threads (`tests/threads.rs` runs 8 threads on one).
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) features: wgpu::Features,
    /// Name, backend, driver, limits, features.
    pub summary: AdapterSummary,
    /// The per-multiprocessor figures the planner uses.
    pub profile: DeviceProfile,
    pub(crate) runtime_checks: bool,
    pub(crate) poison_outputs: bool,
    pub(crate) timeout: Duration,
    pub(crate) pipelines: PipelineCache,
    pub(crate) pools: Pools,
    pub(crate) lost: Arc<Mutex<Option<String>>>,
    pub(crate) polling: Mutex<()>,
    /// The stretch of kernel work the GPU is in, as waits saw it (None: none yet), for
    /// [`Gpu::warm_up_seconds`].
    pub(crate) busy: Mutex<Option<Busy>>,
    /// Queued calls recorded and not yet submitted, in one compute pass ([`Gpu::enqueue`]).
    pub(crate) pending: Mutex<Option<Held>>,
    /// Submissions of queued calls the GPU has not yet finished, as far as wgpu last said
    /// ([`Gpu::submit_held`]).
    pub(crate) in_flight: Arc<std::sync::atomic::AtomicUsize>,
    /// The autotuner's winners for this adapter, read from its cache on first use (the matmul's
    /// table, held as `Any` so that the runtime does not name a kernel family).
    pub(crate) tuning: std::sync::OnceLock<Box<dyn std::any::Any + Send + Sync>>,
    /// Plans already made, by a key their family builds (kernel, problem, tile): a plan depends
    /// only on the adapter and the rates read once above, and a call that plans anew every
    /// time pays for it on the host (the matmul's split search is a search over many splits).
    /// Handed out shared, not copied: a matmul plan with its candidates is many allocations.
    /// At most [`PLANS_HELD`], then
    /// forgotten all at once.
    pub(crate) plans: Mutex<std::collections::HashMap<PlanKey, Arc<crate::plan::Plan>>>,
}

/// How many plans a [`Gpu`] holds before it forgets them.
pub(crate) const PLANS_HELD: usize = 1024;

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.summary.name)
            .field("backend", &self.summary.backend)
            .finish()
    }
}

impl Gpu {
    /// The plan held under `key`, if one is.
    pub(crate) fn held_plan(&self, key: &PlanKey) -> Option<Arc<crate::plan::Plan>> {
        self.plans
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// The plan held under `key`, else `plan()`'s, held from then on (errors are not held).
    pub(crate) fn plan_once(
        &self,
        key: PlanKey,
        plan: impl FnOnce() -> Result<crate::plan::Plan>,
    ) -> Result<Arc<crate::plan::Plan>> {
        if let Some(p) = self.held_plan(&key) {
            return Ok(p);
        }
        let p = Arc::new(plan()?);
        let mut plans = self.plans.lock().unwrap_or_else(|e| e.into_inner());
        if plans.len() >= PLANS_HELD {
            plans.clear();
        }
        plans.insert(key, p.clone());
        Ok(p)
    }

    /// The best adapter, or the one `TILEKIT_ADAPTER` names, opened with its own limits:
    /// `Gpu::new().wait()?` in a native program, `Gpu::new().await?` in async code.
    pub fn new() -> crate::Call<'static, Gpu> {
        Gpu::with_options(GpuOptions::default())
    }

    /// Open a GPU with explicit options.
    pub fn with_options(opts: GpuOptions) -> crate::Call<'static, Gpu> {
        crate::Call::new(async move {
            let wanted = opts
                .adapter
                .clone()
                .or_else(|| std::env::var("TILEKIT_ADAPTER").ok());
            let adapter = pick_adapter(wanted.as_deref().filter(|s| !s.is_empty())).await?;
            let features = WANTED_FEATURES
                .iter()
                .map(|(f, _)| *f)
                .filter(|f| adapter.features().contains(*f))
                .fold(wgpu::Features::empty(), |a, f| a | f);
            let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
            {
                // SAFETY: tilekit uses one experimental feature, cooperative matrices, only in the
                // cooperative-matrix matmul, whose shader naga validates and whose fragment shape is
                // checked against the adapter's list before a pipeline is built (wgpu does not check
                // it: docs/wgpu-notes.md 7).
                unsafe { wgpu::ExperimentalFeatures::enabled() }
            } else {
                wgpu::ExperimentalFeatures::disabled()
            };
            let (device, queue) = adapter
                .request_device(&wgpu::DeviceDescriptor {
                    label: Some("tilekit"),
                    required_features: features,
                    required_limits: if opts.webgpu_limits {
                        wgpu::Limits::default()
                    } else {
                        adapter.limits()
                    },
                    experimental_features: experimental,
                    memory_hints: wgpu::MemoryHints::Performance,
                    trace: wgpu::Trace::Off,
                })
                .await
                .map_err(|e| Error::RequestDevice(e.to_string()))?;
            // Errors are caught by error scopes around each operation; anything that escapes is
            // logged rather than aborting the process.
            device.on_uncaptured_error(Arc::new(|e| log::error!("wgpu: {e}")));
            Gpu::assemble(&adapter, device, queue, &opts)
        })
    }

    /// A `Gpu` on a device the caller opened (a bevy or wgpu application that wants tilekit's
    /// kernels inside its own frame). tilekit plans from `device.limits()` (what the device was
    /// opened with, so open it with `adapter.limits()` for the largest tiles) and uses the
    /// optional features the device was opened with: TIMESTAMP_QUERY (GPU timing, else the wall
    /// clock), SUBGROUP (the subgroup reduction), SHADER_F16 (f16 kernels),
    /// EXPERIMENTAL_COOPERATIVE_MATRIX (the cooperative-matrix matmul). Nothing else is required:
    /// every kernel needs only storage buffers and compute. The caller keeps its error handler;
    /// tilekit still wraps its own calls in error scopes.
    pub fn from_wgpu(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        opts: GpuOptions,
    ) -> Result<Gpu> {
        Gpu::assemble(adapter, device, queue, &opts)
    }

    fn assemble(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        opts: &GpuOptions,
    ) -> Result<Gpu> {
        let features = device.features();
        let summary = AdapterSummary::with(adapter, &device.limits(), features);
        let info = adapter.get_info();
        let profile = match &opts.profile {
            Some(name) => DeviceProfile::named(name)?,
            None => DeviceProfile::detect(
                info.vendor,
                &info.name,
                info.device_type == wgpu::DeviceType::Cpu,
            ),
        };
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut l) = flag.lock() {
                *l = Some(format!("{reason:?}: {message}"));
            }
        });
        let timeout = match opts.timeout {
            Some(t) => t,
            None => timeout_from_env()?,
        };
        Ok(Gpu {
            device,
            queue,
            features,
            summary,
            profile,
            runtime_checks: opts.runtime_checks || env_flag("TILEKIT_CHECKED")?,
            poison_outputs: opts.poison_outputs || env_flag("TILEKIT_POISON")?,
            timeout,
            pipelines: PipelineCache::default(),
            pools: Pools::default(),
            lost,
            polling: Mutex::new(()),
            busy: Mutex::new(None),
            pending: Mutex::new(None),
            in_flight: Default::default(),
            tuning: std::sync::OnceLock::new(),
            plans: Mutex::new(std::collections::HashMap::new()),
        })
    }

    /// The device's compute limits (a device tilekit opens gets all of the adapter's).
    pub fn limits(&self) -> &Limits {
        &self.summary.limits
    }

    /// What the adapter offers a kernel's planner beyond its limits (cooperative-matrix
    /// configurations, subgroup sizes).
    pub fn caps(&self) -> Caps {
        let l = self.limits();
        Caps {
            coop: self.summary.cooperative_matrices.clone(),
            subgroup_sizes: [l.subgroup_min_size, l.subgroup_max_size],
            adapter: self.summary.name.clone(),
        }
    }

    /// The planner for this device's limits and profile.
    pub fn planner(&self) -> crate::plan::Planner {
        crate::plan::Planner::new(self.limits().clone(), self.profile.clone())
    }

    /// Whether the device was opened with `feature`.
    pub(crate) fn has(&self, feature: wgpu::Features) -> bool {
        self.features.contains(feature)
    }

    /// The device's features.
    pub fn features(&self) -> wgpu::Features {
        self.features
    }

    /// Whether kernels run on a CPU implementation (lavapipe and friends).
    pub fn is_cpu(&self) -> bool {
        !self.profile.is_gpu
    }

    /// The wgpu device and queue, for callers that build their own pipelines beside tilekit's
    /// (a [`crate::DeviceBuffer`]'s [`raw`](crate::DeviceBuffer::raw) buffer binds to them).
    /// Calls queued and not yet submitted ([`Gpu::matmul_queue`]) are submitted first, so that
    /// what the caller then writes or submits comes after them.
    pub fn wgpu(&self) -> (&wgpu::Device, &wgpu::Queue) {
        let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
        self.submit_held();
        (&self.device, &self.queue)
    }

    /// An error naming the features `what` needs and the device lacks, if any.
    pub fn require(&self, needs: wgpu::Features, what: &str) -> Result<()> {
        let missing = needs - self.features;
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::MissingFeature {
                what: what.to_string(),
                feature: feature_name(missing),
                adapter: self.summary.name.clone(),
            })
        }
    }

    /// Whether the device has been lost (destroyed, reset by the driver, or, in a browser,
    /// stopped by its watchdog after a kernel that ran too long): every later call fails with
    /// [`Error::DeviceLost`], and a new [`Gpu`] is needed.
    pub fn is_lost(&self) -> bool {
        self.check_lost().is_err()
    }

    /// [`Error::DeviceLost`] if the device has been lost.
    pub(crate) fn check_lost(&self) -> Result<()> {
        match self.lost.lock().ok().and_then(|l| l.clone()) {
            Some(reason) => Err(Error::DeviceLost { reason }),
            None => Ok(()),
        }
    }

    /// Submit one command buffer (holding `polling`: see [`Gpu::wait_for`]), behind the queued
    /// calls not yet submitted, in the same submission.
    pub(crate) fn submit_one(&self, cmd: wgpu::CommandBuffer) -> wgpu::SubmissionIndex {
        let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
        match self.take_pending() {
            Some(p) => self.queue.submit([p, cmd]),
            None => self.queue.submit([cmd]),
        }
    }

    /// `queue.write_buffer`, behind the queued calls not yet submitted: a write is staged and
    /// runs before the next submission's commands, so a call recorded before it must be
    /// submitted first, or it would read what the write put there.
    pub(crate) fn write_buffer(&self, buffer: &wgpu::Buffer, contents: &[u8]) {
        let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
        self.submit_held();
        self.queue.write_buffer(buffer, 0, contents);
    }

    /// Submit the queued calls held, if there are any, and count the submission in flight until
    /// wgpu reports it done (`in_flight`, which `Gpu::enqueue` reads). The caller holds
    /// `polling`. A submission of [`Gpu::submit_one`] carries them too, uncounted: its caller
    /// waits for it.
    pub(crate) fn submit_held(&self) -> Option<wgpu::SubmissionIndex> {
        let held = self.take_pending()?;
        let index = self.queue.submit([held]);
        let in_flight = self.in_flight.clone();
        in_flight.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.queue.on_submitted_work_done(move || {
            in_flight.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        });
        Some(index)
    }

    /// The queued calls recorded and not yet submitted, finished, if there are any.
    fn take_pending(&self) -> Option<wgpu::CommandBuffer> {
        let taken = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        taken.map(Held::finish)
    }

    /// Run `f` inside a validation and an out-of-memory error scope; a wgpu error becomes
    /// [`Error::Gpu`] (or [`Error::DeviceLost`] once the device is gone).
    pub(crate) async fn scoped<T>(&self, context: &str, f: impl FnOnce() -> T) -> Result<T> {
        self.check_lost()?;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        // Native wgpu answers at once; a browser's WebGPU answers on its event loop.
        let v = validation.pop().await;
        let o = oom.pop().await;
        self.check_lost()?;
        match v.or(o) {
            Some(e) => Err(Error::Gpu {
                context: context.to_string(),
                message: e.to_string(),
            }),
            None => Ok(out),
        }
    }

    /// Wait for `submission` (or everything submitted) with the GPU timeout. A short wait spins
    /// on a non-blocking check first: a blocking wait on NVIDIA's Vulkan driver returns long after
    /// the work is done, most of a small call's cost (BENCHMARKS.md, "The per-call tax"); after
    /// 2 ms it blocks, so long kernels burn no CPU.
    pub(crate) async fn wait_for(
        &self,
        what: &str,
        submission: Option<wgpu::SubmissionIndex>,
        waiting: Waiting,
    ) -> Result<()> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.wait_polling(what, submission)?;
            self.saw_finish(waiting);
            Ok(())
        }
        // In a browser nothing can block: wait for the queue's promise. The browser ends a
        // kernel that runs away (its watchdog loses the device), which the lost check reports.
        #[cfg(target_arch = "wasm32")]
        {
            let _ = (what, submission);
            let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
            self.queue.on_submitted_work_done(move || {
                let _ = tx.send(());
            });
            rx.receive().await;
            self.check_lost()?;
            self.saw_finish(waiting);
            Ok(())
        }
    }

    /// Note that a wait saw `waiting` finish: kernels extend the stretch of work the GPU is
    /// in, or start one after an idle gap; a transfer does not count. An upload did not bring an
    /// idle GPU back to speed, and a warm-up that counted it was too short (BENCHMARKS.md, "Warm
    /// up by time").
    fn saw_finish(&self, waiting: Waiting) {
        if waiting != Waiting::Kernels {
            return;
        }
        let now = web_time::Instant::now();
        if let Ok(mut busy) = self.busy.lock() {
            *busy = Some(match *busy {
                Some(b) if now.duration_since(b.last).as_secs_f64() <= IDLE_SECONDS => Busy {
                    since: b.since,
                    last: now,
                },
                _ => Busy {
                    since: now,
                    last: now,
                },
            });
        }
    }

    /// [`Gpu::wait_for`] on a native device: poll with the GPU timeout.
    #[cfg(not(target_arch = "wasm32"))]
    fn wait_polling(&self, what: &str, submission: Option<wgpu::SubmissionIndex>) -> Result<()> {
        // A CPU adapter (lavapipe) runs the kernels on the host's cores: spinning would take one.
        let spin = if self.summary.device_type == "Cpu" {
            Duration::ZERO
        } else {
            Duration::from_micros(2000)
        };
        let start = web_time::Instant::now();
        // wgpu-core 30 asserts when a poll and another thread's poll or submission (which polls
        // too) interleave (gfx-rs/wgpu#9958, fixed after 30.0.1): each holds `polling`, and a
        // wait is cut into slices of at most 1 ms so that other threads submit in between.
        let slice = Duration::from_millis(1);
        let r = loop {
            let left = self.timeout.saturating_sub(start.elapsed());
            let this = if start.elapsed() < spin {
                Duration::ZERO
            } else {
                slice.min(left)
            };
            let r = {
                let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
                self.device.poll(wgpu::PollType::Wait {
                    submission_index: submission.clone(),
                    timeout: Some(this),
                })
            };
            match r {
                Err(wgpu::PollError::Timeout) if !left.is_zero() => {
                    if this.is_zero() {
                        std::hint::spin_loop();
                    }
                }
                other => break other,
            }
        };
        if r.is_err() {
            // A device destroyed or lost reports it through the lost callback, which runs on
            // the next maintenance: give it that chance before naming the error.
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
        self.check_lost()?;
        match r {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => Err(Error::Timeout {
                what: what.to_string(),
                seconds: self.timeout.as_secs_f64(),
            }),
            Err(e) => Err(Error::Gpu {
                context: format!("waiting for {what}"),
                message: e.to_string(),
            }),
        }
    }
}
