//! Every lesson of the tour (what each example wraps) runs to completion and verifies on the
//! test adapter at small sizes; `tilekit tour --quick` exits 0.

#[path = "../../tests/common/mod.rs"]
mod common;
use common::gpu;
use tilekit_course::tour::{self, Size};

#[test]
fn every_lesson_runs_and_verifies() {
    let g = gpu();
    let results = tour::run_all(g, Size::Quick, |_| {});
    assert_eq!(results.len(), 11);
    for (name, r) in results {
        let report = r.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            report.verified,
            "{name} did not verify:\n{}",
            report.render()
        );
        assert!(!report.key.is_empty() && !report.lines.is_empty(), "{name}");
        // The lessons that measure speed say which clock timed them (03 and 10 measure none).
        assert_eq!(
            report.clock.is_some(),
            !["01", "03", "10"].contains(&&name[..2]),
            "{name}"
        );
        // Every lesson with a shader quotes its `// [lesson]` lines (01 and 03 have none).
        if !name.starts_with("01") && !name.starts_with("03") {
            assert!(report.excerpt.is_some(), "{name} quotes no shader lines");
        }
    }
}

#[test]
fn the_tour_command_exits_zero() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args(["tour", "--quick"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("summary") && stdout.contains("11 tensor cores"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("WRONG") && !stdout.contains("FAILED"),
        "{stdout}"
    );
}

/// What a browser's adapter may be: WebGPU's default limits (16 KiB of workgroup storage, 256
/// invocations) and none of the optional features (no subgroups, no f16, no timestamps). The
/// planner sizes every lesson's tiles from those limits, the lessons that need a feature say so
/// and go on, and the timing falls back to the wall clock.
#[test]
fn every_lesson_verifies_on_a_device_with_webgpus_default_limits_and_no_features() {
    let adapter = tilekit::gpu::adapters()
        .unwrap()
        .into_iter()
        .next()
        .expect("these tests need a GPU adapter (lavapipe counts)");
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("webgpu defaults"),
        required_features: wgpu::Features::empty(),
        required_limits: wgpu::Limits::default(),
        ..Default::default()
    }))
    .unwrap();
    let g = tilekit::Gpu::from_wgpu(
        &adapter,
        device,
        queue,
        tilekit::GpuOptions {
            poison_outputs: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(g.limits().max_compute_workgroup_storage_size, 16_384);
    assert!(g.features().is_empty());
    let results = tour::run_all(&g, Size::Quick, |_| {});
    assert_eq!(results.len(), 11);
    for (name, r) in results {
        let report = r.unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = report.render();
        assert!(report.verified, "{name} did not verify:\n{text}");
        match &name[..2] {
            // The tile comes from the 16 KiB: two 16×16 f32 tiles are 2 KiB, 32×32 would
            // need 8 KiB but 1,024 invocations, over the 256 allowed.
            "03" => assert!(report.key.contains("TILE=16"), "{text}"),
            "05" => assert!(text.contains("subgroup: skipped"), "{text}"),
            "11" => assert!(report.key.contains("no f16"), "{text}"),
            _ => {}
        }
        // Without timestamp queries the lessons that measure say the wall clock timed them.
        if let Some(clock) = &report.clock {
            assert_eq!(*clock, tilekit::Clock::WallClock, "{name}");
        }
        assert!(!text.contains("GPU timestamps"), "{name}: {text}");
    }
}
