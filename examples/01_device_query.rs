//! Lesson 01: the device query. CUDA's `cudaGetDeviceProperties` gives `sharedMemPerBlock` and
//! `maxThreadsPerBlock`; WebGPU's adapter gives the same per-workgroup limits
//! (`max_compute_workgroup_storage_size`, `max_compute_invocations_per_workgroup`), and nothing
//! per multiprocessor: that comes from a device profile (PMPP 3rd ed., §4.7).
//!
//! `cargo run --release --example 01_device_query`

use tilekit::limits::Limits;

fn main() -> tilekit::Result<()> {
    // Every adapter wgpu can reach, best first: the one tilekit opens is the first.
    for (i, a) in tilekit::gpu::adapter_summaries()?.iter().enumerate() {
        println!("[{i}] {} ({}, {})", a.name, a.backend, a.device_type);
    }
    let gpu = tilekit::Gpu::new().wait()?;
    let limits = gpu.limits();
    let base = Limits::webgpu_default();
    println!("\nopened {} ({})\n", gpu.summary.name, gpu.summary.backend);

    // What CUDA's deviceQuery prints, next to what every WebGPU adapter must offer.
    let rows = [
        (
            "workgroup storage (sharedMemPerBlock), bytes",
            limits.max_compute_workgroup_storage_size as u64,
            base.max_compute_workgroup_storage_size as u64,
        ),
        (
            "invocations per workgroup (maxThreadsPerBlock)",
            limits.max_compute_invocations_per_workgroup as u64,
            base.max_compute_invocations_per_workgroup as u64,
        ),
        (
            "workgroups per dimension (maxGridSize)",
            limits.max_compute_workgroups_per_dimension as u64,
            base.max_compute_workgroups_per_dimension as u64,
        ),
        (
            "storage binding, bytes",
            limits.max_storage_buffer_binding_size,
            base.max_storage_buffer_binding_size,
        ),
    ];
    println!(
        "{:<48} {:>14} {:>14}",
        "limit", "this adapter", "WebGPU floor"
    );
    for (name, have, floor) in rows {
        println!("{name:<48} {have:>14} {floor:>14}");
    }
    println!(
        "subgroup size: {}..{}",
        limits.subgroup_min_size, limits.subgroup_max_size
    );
    println!("features: {}", gpu.summary.features.join(", "));

    // The per-multiprocessor figures WebGPU hides, from the profile tilekit picked.
    let p = &gpu.profile;
    println!(
        "\nprofile {}: {} threads, {} registers, {} bytes of workgroup memory and {} workgroups per multiprocessor ({})",
        p.name, p.threads_per_mp, p.registers_per_mp, p.workgroup_bytes_per_mp, p.workgroups_per_mp, p.source
    );

    // The lesson's check: every WebGPU adapter offers at least the floor.
    let ok = limits.max_compute_workgroup_storage_size >= base.max_compute_workgroup_storage_size
        && limits.max_compute_invocations_per_workgroup
            >= base.max_compute_invocations_per_workgroup;
    println!(
        "\nat least WebGPU's floor: {}",
        if ok { "yes" } else { "NO" }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
