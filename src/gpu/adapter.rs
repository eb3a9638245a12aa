//! Which adapter: the ones wgpu offers on the backends asked for (`WGPU_BACKEND`), ranked and
//! matched by name (`TILEKIT_ADAPTER`), and what `tilekit info` says about each. Opening a device
//! on the chosen one is [`super::Gpu`]'s job.

use crate::limits::CoopConfig;
use crate::limits::{DeviceProfile, Limits};
use crate::{Error, Result};
use serde::Serialize;

/// The optional features tilekit's kernels use when the adapter has them. The registry says
/// which variant needs which (`kernels::Family::modules`); nothing else needs any.
pub const WANTED_FEATURES: [(wgpu::Features, &str); 4] = [
    (wgpu::Features::TIMESTAMP_QUERY, "TIMESTAMP_QUERY"),
    (wgpu::Features::SUBGROUP, "SUBGROUP"),
    (wgpu::Features::SHADER_F16, "SHADER_F16"),
    (
        wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        "EXPERIMENTAL_COOPERATIVE_MATRIX",
    ),
];

/// wgpu's name for one of [`WANTED_FEATURES`] (or the debug form of any other).
pub fn feature_name(f: wgpu::Features) -> String {
    let names: Vec<&str> = WANTED_FEATURES
        .iter()
        .filter(|(w, _)| f.contains(*w))
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        format!("{f:?}")
    } else {
        names.join(" + ")
    }
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
    /// Compute limits, by wgpu's names.
    pub limits: Limits,
    /// The optional features tilekit uses, those the adapter has.
    pub features: Vec<String>,
    /// Cooperative matrix configurations (M×N×K, A/B type, accumulator type), where the adapter
    /// has them.
    pub cooperative_matrices: Vec<CoopConfig>,
    /// The device profile detected for it.
    pub profile: String,
}

impl CoopConfig {
    fn of(p: &wgpu::CooperativeMatrixProperties) -> CoopConfig {
        let t = |s: wgpu::CooperativeScalarType| match s {
            wgpu::CooperativeScalarType::F16 => "f16",
            wgpu::CooperativeScalarType::F32 => "f32",
            _ => "other",
        };
        CoopConfig {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            ab: t(p.ab_type),
            cr: t(p.cr_type),
        }
    }
}

impl AdapterSummary {
    /// Read an adapter's info, limits and features.
    pub fn of(adapter: &wgpu::Adapter) -> AdapterSummary {
        AdapterSummary::with(adapter, &adapter.limits(), adapter.features())
    }

    /// The summary of `adapter` as a device opened with `limits` and `features` sees it.
    pub(crate) fn with(
        adapter: &wgpu::Adapter,
        limits: &wgpu::Limits,
        features: wgpu::Features,
    ) -> Self {
        let info = adapter.get_info();
        let names = WANTED_FEATURES
            .iter()
            .filter(|(f, _)| features.contains(*f))
            .map(|(_, n)| n.to_string())
            .collect();
        let coop = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            adapter
                .cooperative_matrix_properties()
                .iter()
                .map(CoopConfig::of)
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
            limits: Limits::from_wgpu(limits, [info.subgroup_min_size, info.subgroup_max_size]),
            features: names,
            cooperative_matrices: coop,
            profile: DeviceProfile::detect(
                info.vendor,
                &info.name,
                info.device_type == wgpu::DeviceType::Cpu,
            )
            .name
            .to_string(),
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

fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    // Honours wgpu's environment variables (WGPU_BACKEND among them).
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

/// Blocks on `f` (a native program's thin wrapper over an async call; a browser cannot block).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// The backends `WGPU_BACKEND` names (a comma-separated list, as wgpu reads it), `None` when
/// it is unset; a name wgpu does not know is an error listing the ones it does (wgpu itself
/// skips it with a log line, and an empty set then looked like a machine without a driver).
fn env_backends() -> Result<Option<wgpu::Backends>> {
    let Ok(value) = std::env::var("WGPU_BACKEND") else {
        return Ok(None);
    };
    let mut all = wgpu::Backends::empty();
    for name in value.split(',').map(|n| n.trim().to_lowercase()) {
        all |= match name.as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "opengl" | "gles" | "gl" => wgpu::Backends::GL,
            _ => {
                return Err(Error::Unknown {
                    what: "backend in WGPU_BACKEND",
                    got: name,
                    choices: ["vulkan", "metal", "dx12", "gl"].map(String::from).to_vec(),
                })
            }
        };
    }
    Ok(Some(all))
}

/// `WGPU_BACKEND` if set, else the native compute backends (Vulkan, Metal, DX12); OpenGL only
/// when asked for, since its compute support is the narrowest.
fn backends_from_env() -> Result<wgpu::Backends> {
    Ok(env_backends()?.unwrap_or(wgpu::Backends::PRIMARY))
}

async fn enumerate(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let mut all = instance(backends).enumerate_adapters(backends).await;
    all.sort_by_key(|a| {
        let i = a.get_info();
        (type_rank(i.device_type), backend_rank(i.backend))
    });
    all
}

/// The adapters tilekit chooses from (`WGPU_BACKEND`, else the native backends; in a browser,
/// its WebGPU), best first.
pub async fn adapters_async() -> Result<Vec<wgpu::Adapter>> {
    Ok(enumerate(backends_from_env()?).await)
}

/// The summaries of every adapter on every backend wgpu can reach, OpenGL included (`tilekit
/// info`), or only those of `WGPU_BACKEND` when it is set.
pub async fn adapter_summaries_async() -> Result<Vec<AdapterSummary>> {
    let backends = env_backends()?.unwrap_or(wgpu::Backends::all());
    Ok(enumerate(backends)
        .await
        .iter()
        .map(AdapterSummary::of)
        .collect())
}

/// Blocking [`adapters_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn adapters() -> Result<Vec<wgpu::Adapter>> {
    block_on(adapters_async())
}

/// Blocking [`adapter_summaries_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn adapter_summaries() -> Result<Vec<AdapterSummary>> {
    block_on(adapter_summaries_async())
}

/// `adapters` whose name contains `wanted` (case-insensitive), or [`Error::AdapterNotFound`]
/// listing what there is.
pub fn matching<T>(
    all: Vec<T>,
    wanted: &str,
    info: impl Fn(&T) -> (String, String),
) -> Result<Vec<T>> {
    let lw = wanted.to_lowercase();
    let available: Vec<String> = all
        .iter()
        .map(|a| {
            let (name, backend) = info(a);
            format!("{name} ({backend})")
        })
        .collect();
    let found: Vec<T> = all
        .into_iter()
        .filter(|a| info(a).0.to_lowercase().contains(&lw))
        .collect();
    if found.is_empty() {
        Err(Error::AdapterNotFound {
            wanted: wanted.to_string(),
            available,
        })
    } else {
        Ok(found)
    }
}

pub(crate) async fn pick_adapter(wanted: Option<&str>) -> Result<wgpu::Adapter> {
    let all = adapters_async().await?;
    if all.is_empty() {
        return Err(Error::NoAdapter {
            backends: format!("{:?}", backends_from_env()?),
        });
    }
    match wanted {
        None => Ok(all.into_iter().next().expect("non-empty")),
        Some(w) => Ok(matching(all, w, |a| {
            let i = a.get_info();
            (i.name, format!("{:?}", i.backend))
        })?
        .into_iter()
        .next()
        .expect("non-empty")),
    }
}
