#![cfg(feature = "cli")]
//! Every lesson of the tour (what each example wraps) runs to completion and verifies on the
//! test adapter at small sizes; `tilekit tour --quick` exits 0.

mod common;
use common::gpu;
use tilekit::tour::{self, Size};

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
