//! `tilekit bench --quick` on the test adapter, through the binary: every kernel verified, every
//! figure finite and positive, the JSON, the roofline and the comparison written. No timing
//! thresholds: speed is never asserted in a test.

use std::process::Command;

#[test]
fn quick_bench_verifies_every_kernel() {
    // A scratch folder of its own, removed when the test ends (pass or fail).
    let scratch = tempfile::Builder::new()
        .prefix("tilekit-bench-")
        .tempdir()
        .unwrap();
    let dir = scratch.path();
    let (json, svg) = (dir.join("bench.json"), dir.join("roofline.svg"));
    let out = Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args(["bench", "--quick", "--repeats", "2", "--json"])
        .arg(&json)
        .arg("--chart")
        .arg(&svg)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(table.contains("matmul/blocked"), "{table}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let entries = report["entries"].as_array().unwrap();
    assert!(entries.len() >= 20, "{table}");
    assert!(report["bandwidth_ceiling"].as_f64().unwrap() > 0.0);
    assert!(report["compute_ceiling"].as_f64().unwrap() > 0.0);
    // The matrix units' ceiling is measured exactly where the adapter has cooperative matrices,
    // else listed as skipped with the reason (lavapipe); the cooperative kernel's figures are
    // of it, every other kernel's of the FMA or copy ceiling.
    let measured = entries.iter().any(|e| e["name"] == "ceiling/matrix");
    let skipped = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s.as_str().unwrap().starts_with("ceiling/matrix: "));
    assert!(measured != skipped, "{table}\n{:?}", report["skipped"]);
    assert_eq!(
        report["matrix_ceiling"].as_f64().unwrap() > 0.0,
        measured,
        "{table}"
    );
    for e in entries {
        let coop = e["plan"].as_str().unwrap().starts_with("coop")
            || e["name"].as_str().unwrap().contains("/coop");
        assert_eq!(
            e["bound"] == "matrix",
            coop || e["name"] == "ceiling/matrix",
            "{e}"
        );
    }
    for e in entries {
        let name = e["name"].as_str().unwrap();
        assert_eq!(e["verified"], true, "{name} did not verify");
        for field in ["median_s", "ops_per_second", "percent_of_ceiling"] {
            let v = e[field].as_f64().unwrap();
            assert!(v.is_finite() && v > 0.0, "{name}: {field} = {v}");
        }
        assert_eq!(e["repeats_s"].as_array().unwrap().len(), 2, "{name}");
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("matmul/blocked"));
    // A run compared with itself: every ratio is 1.
    let out = Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args([
            "bench",
            "--quick",
            "--repeats",
            "1",
            "--filter",
            "reverse",
            "--compare",
        ])
        .arg(&json)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("reverse/block"),
        "{text}"
    );
}
