#![cfg(feature = "cli")]
//! `tilekit bench --quick` on the test adapter: every kernel verified, every figure finite and
//! positive. No timing thresholds: speed is never asserted in a test.

mod common;
use common::gpu;

#[test]
fn quick_bench_verifies_every_kernel() {
    let mut cfg = tilekit::bench::Config::new(true);
    cfg.repeats = 2;
    let report = tilekit::bench::run(gpu(), cfg, |_| {}).unwrap();
    assert!(report.entries.len() >= 20, "{}", report.table());
    assert!(report.bandwidth_ceiling > 0.0 && report.compute_ceiling > 0.0);
    for e in &report.entries {
        assert!(e.verified, "{} did not verify", e.name);
        assert!(
            e.median_s.is_finite() && e.median_s > 0.0,
            "{}: {}",
            e.name,
            e.median_s
        );
        assert!(
            e.ops_per_second.is_finite() && e.ops_per_second > 0.0,
            "{}",
            e.name
        );
        assert!(
            e.percent_of_ceiling.is_finite() && e.percent_of_ceiling > 0.0,
            "{}",
            e.name
        );
        assert_eq!(e.repeats_s.len(), 2);
    }
    // The table, the chart and the comparison all render.
    assert!(report.table().contains("matmul/blocked"));
    let dir = std::env::temp_dir().join(format!("tilekit-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("roofline.svg");
    report.roofline_svg(&svg).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("matmul/blocked"));
    let cmp = report.compare(&report);
    assert!(cmp.contains("1.00x"), "{cmp}");
}
