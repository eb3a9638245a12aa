//! Lesson 03: memory as a limiting factor to parallelism (PMPP 3rd ed., §4.7). A program reads
//! the device's limits and sizes its tiles from them instead of compiling a constant in. Here
//! the planner sizes the tiled matmul's tile under three sets of limits: WebGPU's floor, this
//! adapter's, and the book's device D; for each candidate it works out how many workgroups a
//! multiprocessor holds under each resource and says which one binds. Then the chosen tile runs.
//!
//! `cargo run --release --example 03_tile_from_limits`

use tilekit::kernels::matmul::{reference, tiled::TiledTiling, verify, Selection, Shape, Variant};
use tilekit::{DeviceProfile, Limits, Planner};

fn main() -> tilekit::Result<()> {
    let gpu = tilekit::Gpu::new().wait()?;
    let shape = Shape::new(1000, 1000, 1000)?;
    let tiling = TiledTiling::new(shape);
    let cases = [
        (
            "WebGPU floor",
            Limits::webgpu_default(),
            gpu.profile.clone(),
        ),
        ("this adapter", gpu.limits().clone(), gpu.profile.clone()),
        (
            "book device D",
            Limits::webgpu_default(),
            DeviceProfile::book_device_d(),
        ),
    ];
    for (name, limits, profile) in cases {
        let plan = Planner::new(limits, profile).plan(&tiling)?;
        println!("== {name} ==\n{}", plan.table());
    }

    // The book's numbers, reproduced by the planner's residency model (the lesson's own check):
    // 16×16 float tiles use 2 KiB per block, so threads (6 blocks of 256) limit before shared
    // memory, and only 12 KiB of the 16 KiB is used.
    let d = DeviceProfile::book_device_d();
    let use16 = tilekit::plan::KernelUse {
        invocations: 256,
        workgroup_bytes: 2 * 16 * 16 * 4,
        registers: 10,
    };
    let r = tilekit::plan::residency(&d, use16);
    println!(
        "device D, 16×16 tiles: {} workgroups per multiprocessor ({} binds), {} bytes of workgroup memory used (book: 6, threads, 12288)",
        r.workgroups,
        r.binding.name(),
        r.workgroup_bytes_used
    );

    // What a call gets on this adapter: the planner's tile, run and checked.
    let (m, k, n) = (200, 300, 100);
    let a = tilekit::random::uniform_f32(m * k, 3);
    let b = tilekit::random::uniform_f32(k * n, 4);
    let (c, run) = gpu
        .matmul(&a, &b, (m, k, n), &Selection::Variant(Variant::TILED))
        .wait()?;
    let (exact, magnitude) = reference(&a, &b, m, k, n);
    verify(&c, &exact, &magnitude, k)?;
    println!(
        "\n{} runs {m}×{k}×{n} with {}: verified; why: {}",
        gpu.summary.name,
        run.tile,
        run.plan.as_ref().map_or("", |p| p.why.as_str())
    );
    let book_ok = r.workgroups == 6 && r.workgroup_bytes_used == 12 * 1024;
    std::process::exit(if book_ok { 0 } else { 1 });
}
