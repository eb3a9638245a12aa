//! What a user can get wrong, through the `tilekit` binary: every case class of the hardening
//! review has a test here or, for what must never happen to what a user has (outputs into
//! special files, failed runs, unwritable places), in `outputs.rs`.
//!
//! - huge sizes: a typed error before any data is made (no abort, no gigabytes allocated);
//! - a `.npy` header built to make a parser backtrack: refused at once, saying what is wrong;
//! - cold caches: the time printed is never the first run's (which builds the pipelines);
//! - non-uniform barriers: a learner's barrier under `if (tx == 0u)` is refused with its line;
//! - environment and arguments: TILEKIT_TIMEOUT, WGPU_BACKEND, `bench --repeats 0`,
//!   `bench --filter` matching nothing, argument errors under `--json`, float64 beyond float32.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{dir, refused_within, s, stderr, tilekit, tilekit_env};

#[test]
fn huge_sizes_are_refused_before_any_data_is_made() {
    // Each once aborted ("memory allocation of 12000000000 bytes failed", exit 134) or spent
    // seconds making data; every one is a typed error naming the size and the limit.
    for args in [
        &["run", "reduce", "3000000000"][..],
        &["run", "reduce", "200000000000"],
        &["run", "histogram", "300000000000"],
        &["run", "transpose", "100000", "100000"],
        &["run", "reverse", "4000000000"],
        &["run", "copy", "4000000000"],
        &["run", "carve", "4000000000"],
        &["run", "blur", "100000", "100000"],
        &["run", "matmul", "20000", "20000", "20000"],
    ] {
        refused_within(args, &[], "over the adapter's", 10.0);
    }
    refused_within(
        &["run", "transpose", "4294967296", "4294967297"],
        &[],
        "overflow",
        10.0,
    );
}

#[test]
fn a_header_built_to_make_a_parser_backtrack_is_refused_at_once() {
    let scratch = dir("npy");
    let d = scratch.path();
    let dict = format!(
        "{{'descr': '<f4', 'fortran_order': {} False, 'shape': (3,), }}",
        "[".repeat(32)
    );
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((dict.len() as u16).to_le_bytes());
    bytes.extend(dict.as_bytes());
    bytes.extend([0u8; 12]);
    let p = d.join("brackets.npy");
    std::fs::write(&p, bytes).unwrap();
    refused_within(
        &["run", "reduce", "--input", s(&p)],
        &[],
        "expected True or False for 'fortran_order'",
        5.0,
    );
}

#[test]
fn the_time_of_a_measurement_is_never_the_first_runs() {
    // The first call builds the pipelines (and may compile them on a cold driver cache): a
    // measurement must leave it out, whatever it took.
    let gpu = common::gpu();
    let mut calls = 0;
    let m = gpu
        .measure(
            tilekit::Repeat::Each,
            async || {
                calls += 1;
                Ok(if calls == 1 {
                    100.0
                } else {
                    1.0 + calls as f64 * 1e-3
                })
            },
            |s: &f64| *s,
        )
        .wait()
        .unwrap();
    assert!(m.max < 100.0, "the first run was timed: {m:?}");
    assert!(calls > tilekit::STEADY_RUNS);
    // And a comparison claims a speed-up only outside the spread.
    use tilekit::Speed;
    assert_eq!(
        Speed::of((1.0, 0.9, 1.1), (1.05, 0.95, 1.2)),
        Speed::Same(1.05)
    );
    assert!(matches!(
        Speed::of((1.0, 0.95, 1.05), (2.0, 1.9, 2.1)),
        Speed::Faster(_)
    ));
    assert!(matches!(
        Speed::of((2.0, 1.9, 2.1), (1.0, 0.95, 1.05)),
        Speed::Slower(_)
    ));
    assert_eq!(
        Speed::Slower(1.5).than("global"),
        "1.50x slower than global"
    );
    // Overlapping spreads: "as fast" only where the medians agree within 10%, never beside a
    // ratio that says otherwise.
    assert_eq!(Speed::Same(0.97).than("naive"), "as fast as naive (0.97x)");
    let unclear = Speed::of((1.0, 0.5, 3.0), (1.74, 0.9, 2.0));
    assert_eq!(unclear, Speed::Same(1.74));
    assert_eq!(
        unclear.than("scalar"),
        "not clearly faster or slower than scalar (median ratio 1.74x, but the runs disagree)"
    );
}

#[test]
fn calls_measured_side_by_side_compare_round_by_round() {
    // Two calls, the second always twice as slow as the first, on an adapter whose speed drifts
    // threefold from one round to the next: measured apart their spreads overlap; side by side
    // every round says 2x.
    let gpu = common::gpu();
    let drift = [1.0, 3.0, 1.5, 0.8, 2.5, 1.2, 2.0];
    let mut calls = 0usize;
    let m = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            2,
            async |i| {
                let round = calls / 2;
                calls += 1;
                Ok(drift[round % drift.len()] * (1 + i) as f64)
            },
            |s: &f64| *s,
        )
        .wait()
        .unwrap();
    assert_eq!(m.len(), 2);
    assert!(m[0].times.len() >= tilekit::STEADY_RUNS);
    assert_eq!(m[0].times.len(), m[1].times.len());
    use tilekit::Speed;
    assert!(
        matches!(
            Speed::of(
                (m[0].median, m[0].min, m[0].max),
                (m[1].median, m[1].min, m[1].max)
            ),
            Speed::Same(_)
        ),
        "the spreads were meant to overlap: {m:?}"
    );
    // The runs pair round by round: each round's drift is the same for both.
    assert!(
        matches!(Speed::paired(&m[0].times, &m[1].times), Speed::Faster(x) if (x - 2.0).abs() < 1e-9),
        "{:?}",
        Speed::paired(&m[0].times, &m[1].times)
    );
    assert!(matches!(
        Speed::paired(&m[1].times, &m[0].times),
        Speed::Slower(x) if (x - 2.0).abs() < 1e-9
    ));
    // A CPU adapter's runs are not compared at all (its speeds follow the machine's other work);
    // a GPU's are, round by round.
    let verdict = m[0].against(&m[1]);
    if gpu.is_cpu() {
        assert_eq!(verdict, Speed::OnCpu);
        assert_eq!(
            verdict.than("naive"),
            "not compared with naive on a CPU adapter"
        );
    } else {
        assert!(
            matches!(verdict, Speed::Faster(x) if (x - 2.0).abs() < 1e-9),
            "{verdict:?}"
        );
        // Measurements of different batches are compared by their spreads.
        let other = gpu
            .measure(tilekit::Repeat::Each, async || Ok(1.0), |s: &f64| *s)
            .wait()
            .unwrap();
        assert!(matches!(m[0].against(&other), Speed::Same(_)));
    }
}

#[test]
fn a_barrier_in_non_uniform_control_flow_is_refused_by_exercise_check() {
    let scratch = dir("exercise");
    let d = scratch.path();
    let out = tilekit(&[
        "exercise",
        "start",
        "dynamic-reverse",
        s(&d.join("mine.wgsl")),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // `start` never overwrites a learner's file.
    let again = tilekit(&[
        "exercise",
        "start",
        "dynamic-reverse",
        s(&d.join("mine.wgsl")),
    ]);
    assert_eq!(again.status.code(), Some(2));
    let solution = tilekit_course::exercise::exercise("dynamic-reverse")
        .unwrap()
        .solution_source;
    let bad = solution.replacen(
        "workgroupBarrier();",
        "if (t == 0u) { workgroupBarrier(); }",
        1,
    );
    assert_ne!(bad, solution);
    std::fs::write(d.join("mine.wgsl"), bad).unwrap();
    let out = tilekit(&[
        "exercise",
        "check",
        "dynamic-reverse",
        s(&d.join("mine.wgsl")),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("mine.wgsl:") && text.contains("non-uniform control flow"),
        "{text}"
    );
}

#[test]
fn bad_environment_and_arguments_are_named() {
    refused_within(
        &["run", "reduce", "10"],
        &[("TILEKIT_TIMEOUT", "abc")],
        "TILEKIT_TIMEOUT",
        10.0,
    );
    refused_within(
        &["run", "reduce", "10"],
        &[("WGPU_BACKEND", "nosuch")],
        "unknown backend in WGPU_BACKEND \"nosuch\"",
        10.0,
    );
    let out = tilekit(&["bench", "--quick", "--repeats", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--repeats"), "{}", stderr(&out));
    refused_within(
        &["bench", "--quick", "--filter", "zzz"],
        &[],
        "no bench case matches \"zzz\"",
        10.0,
    );
    // The ceilings always run and are no case of their own, on every adapter: the matrix units'
    // ceiling that lavapipe lists as skipped does not count as a match.
    refused_within(
        &["bench", "--quick", "--filter", "ceiling"],
        &[],
        "no bench case matches \"ceiling\"",
        20.0,
    );
    // Argument errors under --json: one JSON object with one line of message, no "error: error".
    let out = tilekit(&["run", "reduce", "--json", "--nosuch", "5"]);
    assert_eq!(out.status.code(), Some(2));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let msg = j["error"]["message"].as_str().unwrap();
    assert!(!msg.contains('\n') && !msg.starts_with("error"), "{msg:?}");
    assert!(msg.contains("--nosuch"), "{msg}");
    assert!(!stderr(&out).contains("error: error"), "{}", stderr(&out));
}

#[test]
fn float64_beyond_float32_is_refused_not_computed_as_infinity() {
    let scratch = dir("f64");
    let d = scratch.path();
    // A 2×2 float64 matrix holding 1e300.
    let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }";
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend(((total - 10) as u16).to_le_bytes());
    bytes.extend(dict.as_bytes());
    bytes.resize(total - 1, b' ');
    bytes.push(b'\n');
    for v in [1.0f64, 1e300, 0.5, -2.0] {
        bytes.extend(v.to_le_bytes());
    }
    let path = d.join("a.npy");
    std::fs::write(&path, &bytes).unwrap();
    let a = s(&path);
    refused_within(
        &["run", "matmul", "--a", a, "--b", a],
        &[],
        "element 1",
        10.0,
    );
    refused_within(&["run", "reduce", "--input", a], &[], "float32", 10.0);
}

#[test]
fn an_on_off_variable_with_another_value_is_refused() {
    refused_within(
        &["run", "reduce", "10"],
        &[("TILEKIT_CHECKED", "banana")],
        "TILEKIT_CHECKED",
        10.0,
    );
}

#[test]
fn a_shader_file_that_never_ends_is_refused_at_its_cap() {
    refused_within(
        &["exercise", "check", "tiled-matmul", "/dev/zero"],
        &[],
        "more than the 1 MiB a shader may have",
        10.0,
    );
}

#[test]
fn a_compare_file_that_never_ends_is_refused_at_its_cap() {
    refused_within(
        &["bench", "--quick", "--compare", "/dev/zero"],
        &[],
        "more than the 64 MiB a bench JSON file may have",
        20.0,
    );
}

/// The learner's file with `from` replaced by `to`, checked as `exercise`: its exit code and
/// what it printed.
fn check_edited(exercise: &str, from: &str, to: &str) -> (Option<i32>, String) {
    let scratch = dir("edited");
    let file = scratch.path().join("mine.wgsl");
    let solution = tilekit_course::exercise::exercise(exercise)
        .unwrap()
        .solution_source;
    let edited = solution.replacen(from, to, 1);
    assert_ne!(edited, solution, "{from:?} is in the solution");
    std::fs::write(&file, edited).unwrap();
    let out = tilekit(&["exercise", "check", exercise, s(&file)]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(!text.contains("panicked"), "{text}");
    (out.status.code(), text)
}

#[test]
fn an_expression_of_twenty_thousand_terms_is_refused_not_an_abort() {
    let terms = vec!["0u"; 20_000].join(" + ");
    let (code, text) = check_edited(
        "dynamic-reverse",
        "workgroupBarrier();",
        &format!("let unused = {terms};\n    workgroupBarrier();"),
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("more than 1000 operators"), "{text}");
}

#[test]
fn a_workgroup_array_over_the_adapters_limit_is_refused() {
    let (code, text) = check_edited(
        "dynamic-reverse",
        "@compute",
        "var<workgroup> too_big: array<u32, 1048576>;\n@compute",
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("var<workgroup> declarations need 41945")
            && text.contains("over this adapter's max_compute_workgroup_storage_size"),
        "{text}"
    );
}

/// A pipe whose header declares more data than the adapter's buffers take is refused after the
/// header, not read on until memory runs out.
#[test]
fn a_pipe_declaring_more_than_the_adapter_takes_is_refused_after_its_header() {
    use std::io::Write;
    let scratch = dir("fifo-huge");
    let fifo = scratch.path().join("huge.npy");
    assert!(Command::new("mkfifo")
        .arg(s(&fifo))
        .status()
        .unwrap()
        .success());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let header = common::npy::bytes_of("<f4", &[10_000_000_000], &[]);
            let _ = f.write_all(&header);
            // Data without end, until the reader goes (the write then fails) or 20 s pass.
            let chunk = vec![0u8; 1 << 20];
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(20) && f.write_all(&chunk).is_ok() {}
        })
    };
    refused_within(
        &["run", "reduce", "--input", s(&fifo)],
        &[],
        "needs 40000000000 bytes of data, over the",
        10.0,
    );
    writer.join().unwrap();
}

#[test]
fn a_negative_size_is_named_not_taken_for_an_option() {
    let out = tilekit(&["run", "matmul", "-1", "4", "4"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("-1 is negative: a size is a whole number of elements"),
        "{err}"
    );
    assert!(!err.contains("-- -1"), "the tip that fails next: {err}");
}

#[test]
fn an_empty_shader_is_told_the_entry_points_it_lacks() {
    let scratch = dir("empty");
    let file = scratch.path().join("mine.wgsl");
    std::fs::write(&file, "").unwrap();
    let out = tilekit(&["exercise", "check", "tiled-matmul", s(&file)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("no entry point `naive`, `tiled`"), "{text}");
    assert!(!text.contains("GPU error"), "{text}");
}

#[test]
fn a_dtype_for_random_matrices_with_npy_inputs_is_refused() {
    let scratch = dir("dtype-with-files");
    let a = scratch.path().join("a.npy");
    common::npy::save(&a, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
    refused_within(
        &[
            "run",
            "matmul",
            "--a",
            s(&a),
            "--b",
            s(&a),
            "--dtype",
            "f16",
        ],
        &[],
        "--dtype sets the element type of random matrices",
        10.0,
    );
}

#[test]
fn a_type_for_random_data_with_an_npy_input_is_refused() {
    let scratch = dir("type-with-file");
    let x = scratch.path().join("x.npy");
    common::npy::save(&x, &[1.0f32, 2.0, 3.0], &[3]);
    refused_within(
        &["run", "reduce", "--input", s(&x), "--type", "i32"],
        &[],
        "--type sets the element type of random data",
        10.0,
    );
}

/// A tuning cache that cannot be read is ignored with one warning in the command's own words.
#[test]
fn an_unreadable_tuning_cache_is_one_plain_warning() {
    let scratch = dir("cache");
    std::fs::write(scratch.path().join("tune.json"), "garbage").unwrap();
    let out = tilekit_env(
        &["run", "matmul", "64", "64", "64"],
        &[("TILEKIT_CACHE_DIR", s(scratch.path()))],
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("warning: ignoring the tuning cache").count(),
        1,
        "{err}"
    );
    assert!(!err.contains(" WARN "), "{err}");
}
