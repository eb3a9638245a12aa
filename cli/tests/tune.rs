//! The autotuner end to end on the test adapter: `tilekit tune --quick` writes a versioned cache
//! for this adapter, `run matmul` then says the tuner chose (and uses the tuned tile), and a
//! corrupt or stale cache is ignored with a warning, never a crash.

use std::process::Command;

#[path = "../../tests/common/mod.rs"]
mod common;

fn tilekit(cache: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tilekit"))
        .args(args)
        .env("TILEKIT_CACHE_DIR", cache)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap()
}

fn chosen(out: &std::process::Output) -> (String, String, String) {
    let v = common::json_of(out);
    let run = &v["run"];
    (
        run["chosen_by"].as_str().unwrap().to_string(),
        run["variant"].as_str().unwrap().to_string(),
        run["tile"].as_str().unwrap().to_string(),
    )
}

#[test]
fn tune_writes_the_cache_that_choose_matmul_reads_and_a_bad_cache_is_ignored() {
    let scratch = tempfile_dir("tune");
    // Not created yet: the first run finds no cache.
    let cache = scratch.path().join("cache");
    // No cache yet: the planner chooses.
    let (by, _, _) = chosen(&tilekit(
        &cache,
        &["run", "matmul", "63", "65", "67", "--json"],
    ));
    assert_eq!(by, "planner");

    let out = tilekit(&cache, &["tune", "--quick", "--json"]);
    let report = common::json_of(&out);
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

    // A tune measures rates only at shapes that fill the GPU, and `--quick`'s never do: the
    // rates an earlier, full tune left for this adapter stay, and reach the planner (shown here
    // with the hopper profile: on a CPU adapter the wave model does not apply).
    assert_eq!(report["rates"], serde_json::json!({}), "{report}");
    let key = adapters.keys().next().unwrap().clone();
    let mut earlier = file.clone();
    earlier["rates"] = serde_json::json!({ key.clone(): {"pipelined": {"64x64x8": 0.5}} });
    std::fs::write(cache.join("tune.json"), earlier.to_string()).unwrap();
    let out = tilekit(&cache, &["tune", "--quick", "--json"]);
    assert!(out.status.success());
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cache.join("tune.json")).unwrap()).unwrap();
    assert_eq!(after["rates"][&key]["pipelined"]["64x64x8"], 0.5, "{after}");
    let out = tilekit(
        &cache,
        &[
            "--profile",
            "hopper",
            "plan",
            "pipelined-matmul",
            "300",
            "200",
            "100",
            "--json",
        ],
    );
    let plan = common::json_of(&out);
    for c in plan["plan"]["candidates"].as_array().unwrap() {
        let rate = if c["label"] == "64x64x8" {
            serde_json::json!(0.5)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(c["rate"], rate, "{c}");
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
}

/// The measured defaults tilekit ships (for adapters of a device profile without a tuning cache
/// of their own) parse, and every winner plans under the limits of the GPU class they were
/// measured on: the H100 preset, its cooperative-matrix configuration and the hopper profile.
/// A winner that stopped planning after a change to a kernel's candidates fails here, not in
/// silence on a user's GPU.
#[test]
fn every_shipped_measured_default_plans_on_its_device_class() {
    use tilekit::kernels::matmul::{tune, Shape};
    use tilekit::limits::{Caps, DeviceProfile, Limits};
    use tilekit::plan::{ChosenBy, Planner};
    let m = tune::measured_defaults("hopper").expect("tilekit ships hopper's measured defaults");
    assert_eq!(m.profile, "hopper");
    assert!(m.winners.len() >= 10, "{} winners", m.winners.len());
    let limits = Limits::preset("h100").unwrap();
    let caps = Caps::preset("h100", &limits);
    let planner = Planner::new(limits, DeviceProfile::named("hopper").unwrap());
    for (bucket, w) in &m.winners {
        assert_eq!(w.variant.precision(), bucket.precision, "{bucket}");
        let shape = Shape::new(bucket.m as usize, bucket.k as usize, bucket.n as usize).unwrap();
        match (w.variant.tiling(shape, &caps).unwrap(), &w.tile) {
            (Some(t), Some(label)) => {
                let tile = planner
                    .tile_named(t.as_ref(), label)
                    .unwrap_or_else(|e| panic!("{bucket}: {} {label}: {e}", w.variant));
                let plan = planner
                    .plan_chosen(t.as_ref(), &tile, ChosenBy::Measured)
                    .unwrap_or_else(|e| panic!("{bucket}: {} {label}: {e}", w.variant));
                assert_eq!(plan.chosen_by, ChosenBy::Measured);
            }
            (None, None) => {}
            (t, label) => panic!(
                "{bucket}: {} has a tile to choose: {}, the table says {label:?}",
                w.variant,
                t.is_some()
            ),
        }
    }
    // Nothing is shipped for a profile nobody measured.
    assert!(tune::measured_defaults("cpu").is_none());
}

/// An adapter of a profile tilekit has measured defaults for, with no tuning cache of its own,
/// gets the measured winner (`chosen_by: measured`) at the shapes it was measured at, where it
/// plans, and the planner's choice where the winner needs what the adapter lacks (the
/// cooperative-matrix kernel on lavapipe) or the shape is far from the measured one within its
/// bucket (3000³ in 4096³'s: the wave model did better there). The test adapter is made to claim
/// the hopper profile; nothing is launched.
#[test]
fn an_adapter_without_a_cache_gets_its_profiles_measured_defaults() {
    use tilekit::kernels::matmul::{tune, Precision, Selection, Shape};
    use tilekit::plan::ChosenBy;
    let scratch = tempfile_dir("measured-defaults");
    let empty = scratch.path();
    std::env::set_var("TILEKIT_CACHE_DIR", empty);
    let g = tilekit::Gpu::with_options(tilekit::GpuOptions {
        profile: Some("hopper".into()),
        ..Default::default()
    })
    .wait()
    .expect("these tests need a GPU adapter (lavapipe counts)");
    let m = tune::measured_defaults("hopper").unwrap();
    let mut measured = 0;
    // An f32 shape that took its measured default here (whose block this adapter can hold).
    let mut square: Option<Shape> = None;
    for (bucket, w) in &m.winners {
        // The shape the winner was measured at ("4095×4095×4095"), which its bucket holds.
        let d: Vec<usize> = w.shape.split('×').map(|x| x.parse().unwrap()).collect();
        let shape = Shape::new(d[0], d[1], d[2]).unwrap();
        assert!(w.measured_near(shape), "{bucket}: {}", w.shape);
        assert_eq!(tune::TuneKey::of(shape, bucket.precision), *bucket);
        let selected =
            tilekit::kernels::matmul::select(&g, shape, bucket.precision, &Selection::Auto);
        if bucket.precision == Precision::F16 && !g.features().contains(wgpu::Features::SHADER_F16)
        {
            // llvmpipe's GL has no f16 at all: the measured default must not paper over that.
            match selected {
                Err(tilekit::Error::Unsupported { missing, .. }) => {
                    assert!(missing.contains("SHADER_F16"), "{bucket}: {missing}")
                }
                other => panic!("{bucket}: f16 without SHADER_F16 gave {other:?}"),
            }
            continue;
        }
        let c = selected.unwrap_or_else(|e| panic!("{bucket}: {e}"));
        if g.features().contains(w.variant.needs()) && c.chosen_by == ChosenBy::Measured {
            assert_eq!(c.variant, w.variant, "{bucket}");
            let tile = c.plan.as_ref().map(|p| p.choice().label.clone());
            assert_eq!(
                tile.as_deref().map(|t| t.split(',').next().unwrap()),
                w.tile.as_deref().map(|t| t.split(',').next().unwrap()),
                "{bucket}"
            );
            measured += 1;
            if bucket.precision == Precision::F32 && shape.m >= 64 && shape.n >= 64 {
                square.get_or_insert(shape);
            }
        } else {
            assert_eq!(c.chosen_by, ChosenBy::Planner, "{bucket}: {c:?}");
        }
    }
    assert!(
        measured >= 5,
        "only {measured} buckets took the measured default"
    );
    // A shape a tenth away from one the table was measured at takes its default; shapes in
    // the same bucket (each dimension rounded up to a power of two) but farther off take the
    // planner's choice.
    let by = |m: u32, k: u32, n: u32| {
        tilekit::kernels::matmul::select(
            &g,
            Shape::new(m as usize, k as usize, n as usize).unwrap(),
            Precision::F32,
            &Selection::Auto,
        )
        .unwrap()
        .chosen_by
    };
    let Shape { m, k, n } = square.expect("an f32 measured default with M, N >= 64 plans here");
    let low = |d: u32| d.next_power_of_two() / 2 + 1; // the bucket's smallest
    assert_eq!(by(m, k, n), ChosenBy::Measured);
    assert_eq!(by(m - m / 10, k, n - n / 10), ChosenBy::Measured);
    assert_eq!(by(low(m), k, n), ChosenBy::Planner, "{m}×{k}×{n}");
    assert_eq!(by(m, k, low(n)), ChosenBy::Planner, "{m}×{k}×{n}");
}

/// The rates a tune measures come from the shapes at which every tile it timed matched f64 and
/// ran at least `RATE_WAVES` full waves: at each, each tile's speed against the fastest's; per
/// tile, their geometric mean, the fastest tile's rate scaled to 1. A shape too small to fill the
/// GPU, or one with a tile that failed its check, counts for nothing; with none left there are no
/// rates (as after `tune --quick`), and the library keeps its profile's shipped ones. The test
/// adapter claims the hopper profile (132 multiprocessors) and uses blocks it can hold; the
/// trials' times are made up, nothing is launched.
#[test]
fn rates_come_from_the_shapes_that_fill_the_gpu() {
    use tilekit::kernels::matmul::tune::{rates, Trial, TuneKey, Tuned, Winner, RATE_WAVES};
    use tilekit::kernels::matmul::{Precision, Shape, Variant};
    let g = tilekit::Gpu::with_options(tilekit::GpuOptions {
        profile: Some("hopper".into()),
        ..Default::default()
    })
    .wait()
    .expect("these tests need a GPU adapter (lavapipe counts)");
    let tuned = |n: usize, times: &[(&str, f64, bool)]| {
        let shape = Shape::new(n, n, n).unwrap();
        Tuned {
            bucket: TuneKey::of(shape, Precision::F32),
            trials: times
                .iter()
                .map(|&(tile, seconds, verified)| Trial {
                    shape,
                    variant: Variant::PIPELINED,
                    tile: Some(tile.to_string()),
                    seconds,
                    verified,
                })
                .collect(),
            winner: Winner {
                variant: Variant::PIPELINED,
                tile: Some(times[0].0.to_string()),
                seconds: times[0].1,
                planner_seconds: times[0].1,
                shape: shape.to_string(),
            },
        }
    };
    // 4096³: 4,096 blocks of 64×64 over 132 × 6 slots (five full waves), 1,024 of 128×128 over
    // 132 × 2 (three); 8192³ four times as many. 1024³ fills less than one wave.
    const { assert!(1_024 / (132 * 2) >= RATE_WAVES && 64 / (132 * 2) < RATE_WAVES) };
    let at_8192 = tuned(
        8192,
        &[("64x64x8", 0.030, true), ("128x128x8", 0.024, true)],
    );
    let at_4096 = tuned(
        4096,
        &[("64x64x8", 0.0040, true), ("128x128x8", 0.0036, true)],
    );
    let at_1024 = tuned(
        1024,
        &[("64x64x8", 0.001, true), ("128x128x8", 0.004, true)],
    );
    let r = rates(&g, &[at_1024.clone(), at_8192.clone(), at_4096.clone()]);
    let p = &r["pipelined"];
    assert_eq!(p.len(), 2, "{r:?}");
    assert_eq!(p["128x128x8"], 1.0);
    // 0.8 at 8192³, 0.9 at 4096³; 1024³'s 4.0 does not count.
    assert!(
        (p["64x64x8"] - (0.8f64 * 0.9).sqrt()).abs() < 1e-12,
        "{p:?}"
    );
    // One shape alone gives its own ratios.
    let one = rates(&g, std::slice::from_ref(&at_8192));
    assert!((one["pipelined"]["64x64x8"] - 0.8).abs() < 1e-12, "{one:?}");
    // Only the small shape, or a big one with a tile that failed its check: no rates.
    assert!(rates(&g, std::slice::from_ref(&at_1024)).is_empty());
    let failed = tuned(
        8192,
        &[("64x64x8", 0.030, false), ("128x128x8", 0.024, true)],
    );
    assert!(rates(&g, &[at_1024, failed]).is_empty());
}

/// A scratch folder of its own, removed when the test ends (pass or fail).
fn tempfile_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tilekit-{name}-"))
        .tempdir()
        .unwrap()
}
