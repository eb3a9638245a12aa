//! The teaching tour: each lesson runs its kernels, verifies them against a CPU reference, and
//! reports what the lesson predicts beside what was measured. The lessons live in
//! [`crate::lessons`], one file per family; the tour runs lesson 01 (the device query) and then
//! every family's lessons in number order. `examples/NN_*.rs` each wrap one lesson.

pub use crate::lesson::{rand_f32, size_note, Chart, Lesson, Report, Size, CPU_CAVEAT};
use tilekit::{Gpu, Result};

/// 01: the device query, as `cudaGetDeviceProperties`.
pub async fn device_query(gpu: &Gpu, _size: Size) -> Result<Report> {
    let mut r = Report::new(
        "01 device query",
        "WebGPU exposes per-workgroup limits (CUDA's sharedMemPerBlock, maxThreadsPerBlock); the per-multiprocessor figures come from a device profile.",
    );
    let s = &gpu.summary;
    let l = gpu.limits();
    // A browser's WebGPU names no driver.
    let driver = format!("{} {}", s.driver, s.driver_info);
    let driver = match driver.trim() {
        "" => String::new(),
        d => format!(", driver {d}"),
    };
    r.line(format!(
        "adapter {} ({}, {}{driver})",
        s.name, s.backend, s.device_type
    ));
    r.line(format!(
        "max_compute_workgroup_storage_size {} B | max_compute_invocations_per_workgroup {} | max_compute_workgroup_size {:?}",
        l.max_compute_workgroup_storage_size, l.max_compute_invocations_per_workgroup, l.max_workgroup_size()
    ));
    r.line(format!(
        "max_compute_workgroups_per_dimension {} | max_storage_buffer_binding_size {} B | subgroup sizes {}..{}",
        l.max_compute_workgroups_per_dimension, l.max_storage_buffer_binding_size, l.subgroup_min_size, l.subgroup_max_size
    ));
    r.line(format!(
        "features: {} | profile: {} ({})",
        if s.features.is_empty() {
            "none".to_string()
        } else {
            s.features.join(", ")
        },
        gpu.profile.name,
        gpu.profile.source
    ));
    r.verified = l.max_compute_workgroup_storage_size >= 16_384
        && l.max_compute_invocations_per_workgroup >= 256;
    // CUDA's deviceQuery against the floor every WebGPU adapter guarantees.
    let base = tilekit::limits::Limits::webgpu_default();
    r.charts.push(Chart {
        title: "this adapter's limits as multiples of WebGPU's baseline (the dashed bar)".into(),
        unit: "×".into(),
        bars: [
            (
                "workgroup storage",
                l.max_compute_workgroup_storage_size as f64,
                base.max_compute_workgroup_storage_size as f64,
            ),
            (
                "invocations / workgroup",
                l.max_compute_invocations_per_workgroup as f64,
                base.max_compute_invocations_per_workgroup as f64,
            ),
            (
                "storage binding size",
                l.max_storage_buffer_binding_size as f64,
                base.max_storage_buffer_binding_size as f64,
            ),
        ]
        .into_iter()
        .map(|(n, v, b)| (n.to_string(), v / b, Some(1.0)))
        .collect(),
        against: "WebGPU baseline",
    });
    r.key = format!(
        "{} B workgroup storage, {} invocations",
        l.max_compute_workgroup_storage_size, l.max_compute_invocations_per_workgroup
    );
    Ok(r)
}

/// Every lesson in order: the device query, then each family's.
pub fn lessons() -> Vec<Lesson> {
    let mut all = vec![Lesson {
        number: 1,
        name: "device query",
        run: |gpu, size| Box::pin(device_query(gpu, size)),
    }];
    all.extend(crate::lessons::all());
    all.sort_by_key(|l| l.number);
    all
}

/// The lesson numbered `number`.
pub fn lesson(number: u32) -> Option<Lesson> {
    lessons().into_iter().find(|l| l.number == number)
}

/// Every lesson in order (`tilekit tour`, the web page); `progress` is called before each.
pub async fn run_all_async(
    gpu: &Gpu,
    size: Size,
    mut progress: impl FnMut(&str),
) -> Vec<(String, Result<Report>)> {
    let mut out = Vec::new();
    for l in lessons() {
        let label = l.label();
        progress(&label);
        out.push((label, (l.run)(gpu, size).await));
    }
    out
}

/// Blocking [`run_all_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn run_all(gpu: &Gpu, size: Size, progress: impl FnMut(&str)) -> Vec<(String, Result<Report>)> {
    pollster::block_on(run_all_async(gpu, size, progress))
}
