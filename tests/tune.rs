#![cfg(feature = "cli")]
//! The autotuner end to end on the test adapter: `tilekit tune --quick` writes a versioned cache
//! for this adapter, `run matmul` then says the tuner chose (and uses the tuned tile), and a
//! corrupt or stale cache is ignored with a warning, never a crash.

use std::process::Command;

fn tilekit(cache: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args(args)
        .env("TILEKIT_CACHE_DIR", cache)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap()
}

fn chosen(out: &std::process::Output) -> (String, String, String) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &v["run"];
    (
        run["chosen_by"].as_str().unwrap().to_string(),
        run["variant"].as_str().unwrap().to_string(),
        run["tile"].as_str().unwrap().to_string(),
    )
}

#[test]
fn tune_writes_the_cache_that_choose_matmul_reads_and_a_bad_cache_is_ignored() {
    let cache = std::env::temp_dir().join(format!("tilekit-tune-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    // No cache yet: the planner chooses.
    let (by, _, _) = chosen(&tilekit(
        &cache,
        &["run", "matmul", "63", "65", "67", "--json"],
    ));
    assert_eq!(by, "planner");

    let out = tilekit(&cache, &["tune", "--quick", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cache.join("tune.json")).unwrap()).unwrap();
    assert_eq!(file["version"], 1);
    let adapters = file["adapters"].as_object().unwrap();
    assert_eq!(adapters.len(), 1, "{file}");
    let (_, buckets) = adapters.iter().next().unwrap();
    let bucket = &buckets["f32 m64 k128 n128"]; // 63×65×67 rounds up to this bucket
                                                // Every timed candidate was checked against f64, and the winner is the fastest of them.
    let tuned = report["tuned"].as_array().unwrap();
    let t = tuned
        .iter()
        .find(|t| t["bucket"] == "f32 m64 k128 n128")
        .unwrap();
    let trials = t["trials"].as_array().unwrap();
    assert!(trials.len() >= 3, "{t}");
    assert!(trials.iter().all(|x| x["verified"] == true), "{t}");
    let fastest = trials
        .iter()
        .map(|x| x["seconds"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(bucket["seconds"].as_f64().unwrap(), fastest);

    // With the cache, the tuner chooses, with its tile.
    let (by, variant, tile) = chosen(&tilekit(
        &cache,
        &["run", "matmul", "63", "65", "67", "--json"],
    ));
    assert_eq!(by, "tuner");
    assert_eq!(variant, bucket["variant"].as_str().unwrap());
    if let Some(t) = bucket["tile"].as_str() {
        assert!(tile.starts_with(t), "{tile} vs {t}");
    }

    // A corrupt file and a file of another format version: a warning, the planner, exit 0.
    for bad in ["{not json", r#"{"version": 99, "adapters": {}}"#] {
        std::fs::write(cache.join("tune.json"), bad).unwrap();
        let out = tilekit(&cache, &["run", "matmul", "63", "65", "67", "--json"]);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("ignoring the tuning cache"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(chosen(&out).0, "planner");
    }
    let _ = std::fs::remove_dir_all(&cache);
}
