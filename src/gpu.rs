//! `Gpu`: the adapter, a device with the adapter's own limits, and what every kernel shares.

use crate::limits::{DeviceProfile, Limits};
use crate::pipeline::PipelineCache;
use crate::{Error, Result};
use serde::Serialize;

/// The optional features tilekit's kernels use when the adapter has them.
pub const WANTED_FEATURES: [(wgpu::Features, &str); 3] = [
    (wgpu::Features::TIMESTAMP_QUERY, "TIMESTAMP_QUERY"),
    (wgpu::Features::SUBGROUP, "SUBGROUP"),
    (wgpu::Features::SHADER_F16, "SHADER_F16"),
];

/// How to open a [`Gpu`].
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Part of the adapter's name (case-insensitive); `None` reads `TILEKIT_ADAPTER`, and if that
    /// is unset the best adapter is taken (discrete > integrated > virtual > software).
    pub adapter: Option<String>,
    /// Keep wgpu's shader runtime checks (bounds clamping, loop bounding). Off by default: they
    /// cost up to 3× in loops (FINDINGS.md pitfall 3), and tilekit's index arithmetic is tested at
    /// every edge size. `TILEKIT_CHECKED=1` turns them on.
    pub runtime_checks: bool,
    /// A [`DeviceProfile`] name; `None` detects it from the adapter.
    pub profile: Option<String>,
}

/// What `tilekit info` shows about one adapter (the analogue of `cudaGetDeviceProperties`).
#[derive(Clone, Debug, Serialize)]
pub struct AdapterSummary {
    /// Adapter name.
    pub name: String,
    /// Backend (Vulkan, Metal, Dx12, Gl).
    pub backend: String,
    /// Driver name.
    pub driver: String,
    /// Driver version and details.
    pub driver_info: String,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: String,
    /// PCI vendor id.
    pub vendor: u32,
    /// PCI device id.
    pub device: u32,
    /// Compute limits.
    pub limits: Limits,
    /// The optional features tilekit uses, those the adapter has.
    pub features: Vec<String>,
    /// Cooperative matrix shapes (M×N×K, A/B type, accumulator type), where the adapter has them.
    pub cooperative_matrices: Vec<String>,
}

impl AdapterSummary {
    /// Read an adapter's info, limits and features.
    pub fn of(adapter: &wgpu::Adapter) -> AdapterSummary {
        let info = adapter.get_info();
        let features = adapter.features();
        let mut names: Vec<String> = WANTED_FEATURES
            .iter()
            .filter(|(f, _)| features.contains(*f))
            .map(|(_, n)| n.to_string())
            .collect();
        let coop = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            names.push("EXPERIMENTAL_COOPERATIVE_MATRIX".into());
            adapter
                .cooperative_matrix_properties()
                .iter()
                .map(|p| format!("{p:?}"))
                .collect()
        } else {
            Vec::new()
        };
        AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            device_type: format!("{:?}", info.device_type),
            vendor: info.vendor,
            device: info.device,
            limits: Limits::from_wgpu(
                &adapter.limits(),
                [info.subgroup_min_size, info.subgroup_max_size],
            ),
            features: names,
            cooperative_matrices: coop,
        }
    }
}

fn type_rank(t: wgpu::DeviceType) -> u32 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    }
}

fn backend_rank(b: wgpu::Backend) -> u32 {
    // Native compute backends before OpenGL, whose compute support is the narrowest.
    match b {
        wgpu::Backend::Vulkan | wgpu::Backend::Metal | wgpu::Backend::Dx12 => 0,
        _ => 1,
    }
}

fn instance() -> wgpu::Instance {
    // Honours WGPU_BACKEND (and wgpu's other environment variables).
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends_from_env();
    wgpu::Instance::new(desc)
}

/// `WGPU_BACKEND` if set, else the native compute backends (Vulkan, Metal, DX12); OpenGL only
/// when asked for, since its compute support is the narrowest.
fn backends_from_env() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY)
}

/// Every adapter wgpu can see, best first.
pub fn adapters() -> Vec<wgpu::Adapter> {
    let mut all = pollster::block_on(instance().enumerate_adapters(backends_from_env()));
    all.sort_by_key(|a| {
        let i = a.get_info();
        (type_rank(i.device_type), backend_rank(i.backend))
    });
    all
}

/// The summaries of every adapter (for `tilekit info`).
pub fn adapter_summaries() -> Vec<AdapterSummary> {
    adapters().iter().map(AdapterSummary::of).collect()
}

fn pick_adapter(wanted: Option<&str>) -> Result<wgpu::Adapter> {
    let all = adapters();
    if all.is_empty() {
        return Err(Error::NoAdapter {
            backends: format!("{:?}", backends_from_env()),
        });
    }
    match wanted {
        None => Ok(all.into_iter().next().expect("non-empty")),
        Some(w) => {
            let lw = w.to_lowercase();
            let available: Vec<String> = all
                .iter()
                .map(|a| {
                    let i = a.get_info();
                    format!("{} ({:?})", i.name, i.backend)
                })
                .collect();
            all.into_iter()
                .find(|a| a.get_info().name.to_lowercase().contains(&lw))
                .ok_or(Error::AdapterNotFound {
                    wanted: w.to_string(),
                    available,
                })
        }
    }
}

/// A GPU ready for tilekit's kernels: the adapter, a device opened with the adapter's own limits
/// (not the downlevel defaults), the optional features tilekit uses, the device profile and the
/// pipeline cache. `Gpu` is `Sync`: share one between threads.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) features: wgpu::Features,
    /// Name, backend, driver, limits, features.
    pub summary: AdapterSummary,
    /// The per-multiprocessor figures the planner uses.
    pub profile: DeviceProfile,
    pub(crate) runtime_checks: bool,
    pub(crate) pipelines: PipelineCache,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.summary.name)
            .finish()
    }
}

impl Gpu {
    /// The best adapter, or the one `TILEKIT_ADAPTER` names.
    pub fn new() -> Result<Gpu> {
        Gpu::with_options(GpuOptions::default())
    }

    /// Open a GPU with explicit options.
    pub fn with_options(opts: GpuOptions) -> Result<Gpu> {
        let wanted = opts
            .adapter
            .clone()
            .or_else(|| std::env::var("TILEKIT_ADAPTER").ok());
        let adapter = pick_adapter(wanted.as_deref().filter(|s| !s.is_empty()))?;
        let summary = AdapterSummary::of(&adapter);
        let features = WANTED_FEATURES
            .iter()
            .map(|(f, _)| *f)
            .filter(|f| adapter.features().contains(*f))
            .fold(wgpu::Features::empty(), |a, f| a | f);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("tilekit"),
            required_features: features,
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| Error::RequestDevice(e.to_string()))?;
        // Errors are caught by error scopes around each operation; anything that escapes is
        // logged rather than aborting the process.
        device.on_uncaptured_error(std::sync::Arc::new(|e| log::error!("wgpu: {e}")));
        let info = adapter.get_info();
        let profile = match &opts.profile {
            Some(name) => DeviceProfile::named(name)?,
            None => DeviceProfile::detect(
                info.vendor,
                &info.name,
                info.device_type == wgpu::DeviceType::Cpu,
            ),
        };
        let runtime_checks = opts.runtime_checks
            || std::env::var("TILEKIT_CHECKED").is_ok_and(|v| !v.is_empty() && v != "0");
        Ok(Gpu {
            device,
            queue,
            features,
            summary,
            profile,
            runtime_checks,
            pipelines: PipelineCache::default(),
        })
    }

    /// The adapter's compute limits (the device was opened with all of them).
    pub fn limits(&self) -> &Limits {
        &self.summary.limits
    }

    /// The planner for this adapter's limits and profile.
    pub fn planner(&self) -> crate::plan::Planner {
        crate::plan::Planner::new(self.limits().clone(), self.profile.clone())
    }

    /// Whether the device was opened with `feature`.
    pub fn has(&self, feature: wgpu::Features) -> bool {
        self.features.contains(feature)
    }

    /// Whether kernels run on a CPU implementation (lavapipe and friends).
    pub fn is_cpu(&self) -> bool {
        !self.profile.is_gpu
    }

    /// The wgpu device, for callers that build their own pipelines beside tilekit's.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// An error naming the feature `what` needs, if the device lacks it.
    pub fn require(&self, feature: wgpu::Features, name: &'static str, what: &str) -> Result<()> {
        if self.has(feature) {
            Ok(())
        } else {
            Err(Error::MissingFeature {
                what: what.to_string(),
                feature: name,
                adapter: self.summary.name.clone(),
            })
        }
    }

    /// Run `f` inside a validation and an out-of-memory error scope; a wgpu error becomes
    /// [`Error::Gpu`].
    pub(crate) fn scoped<T>(&self, context: &str, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        match v.or(o) {
            Some(e) => Err(Error::Gpu {
                context: context.to_string(),
                message: e.to_string(),
            }),
            None => Ok(out),
        }
    }

    /// Wait until the queue is idle.
    pub(crate) fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map(|_| ())
            .map_err(|e| Error::Gpu {
                context: "waiting for the GPU".into(),
                message: e.to_string(),
            })
    }
}
