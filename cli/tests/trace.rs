//! `tilekit trace` and the exercise check's report end to end: a race found and named with exit
//! code 1, one JSON object with `--json`, SVG pictures that never replace a file tilekit did not
//! write, bad arguments refused in one line with exit code 2, and `--run`: the kernel on the
//! adapter after a clean trace. The tracer needs no GPU; `--run` needs an adapter (lavapipe).

mod support;
use std::path::Path;
use std::process::Output;
use support::{dir, s, tilekit};

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The dynamic reverse with its barrier removed, as a learner might write it.
fn racy_reverse(d: &Path) -> std::path::PathBuf {
    let src = tilekit::shaders::REVERSE.replacen(
        "    s_dyn[t] = data[t];\n    workgroupBarrier();",
        "    s_dyn[t] = data[t];",
        1,
    );
    assert_ne!(src, tilekit::shaders::REVERSE);
    let p = d.join("racy.wgsl");
    std::fs::write(&p, src).unwrap();
    p
}

/// `tilekit trace FILE` on the dynamic reverse of 64 words, then `extra`.
fn trace_reverse(file: &Path, extra: &[&str]) -> Output {
    let args = [
        "trace",
        s(file),
        "--entry",
        "dynamic_reverse",
        "--override",
        "N=64",
        "--len",
        "64",
    ];
    tilekit(&[&args[..], extra].concat())
}

#[test]
fn a_race_is_named_with_both_lines_and_exit_code_1() {
    let d = dir("race");
    let file = racy_reverse(d.path());
    let o = trace_reverse(&file, &[]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("race on s_dyn["), "{t}");
    assert!(t.contains("racy.wgsl:"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
    // The solution traces clean: exit 0.
    let good = d.path().join("good.wgsl");
    std::fs::write(&good, tilekit::shaders::REVERSE).unwrap();
    let o = trace_reverse(&good, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn json_is_one_object_with_the_findings_and_counts() {
    let d = dir("json");
    let file = racy_reverse(d.path());
    let o = tilekit(&[
        "trace",
        s(&file),
        "--entry",
        "dynamic_reverse",
        "--override",
        "N=100",
        "--len",
        "100",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8(o.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["clean"], false);
    let f = &v["report"]["findings"][0];
    assert_eq!(f["kind"], "race");
    assert_eq!(f["variable"], "s_dyn");
    let data = v["report"]["traffic"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["variable"] == "data")
        .unwrap();
    assert_eq!(data["loads"], 100);
    assert_eq!(data["stores"], 100);
}

#[test]
fn svg_pictures_are_written_and_a_foreign_file_is_never_replaced() {
    let d = dir("svg");
    let file = racy_reverse(d.path());
    let pics = d.path().join("pics");
    let args = |p: &Path| {
        vec![
            "trace".to_string(),
            s(&file).to_string(),
            "--entry".into(),
            "dynamic_reverse".into(),
            "--len".into(),
            "64".into(),
            "--svg".into(),
            s(p).to_string(),
        ]
    };
    let run = |a: Vec<String>| tilekit(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let o = run(args(&pics));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let svg = std::fs::read_to_string(pics.join("dynamic_reverse-s_dyn.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("epoch 0"), "{svg}");
    // The raced word is outlined.
    assert!(svg.contains("stroke=\"#d00\""), "{svg}");
    // Run again: tilekit's own file is replaced.
    assert_eq!(run(args(&pics)).status.code(), Some(1));
    // A file of the user's with that name is kept, and the run refused.
    let mine = pics.join("dynamic_reverse-s_dyn.svg");
    std::fs::write(&mine, "my drawing").unwrap();
    let o = run(args(&pics));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("tilekit did not write it"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my drawing");
}

#[test]
fn bad_arguments_are_one_line_and_exit_code_2() {
    let d = dir("bad");
    let file = d.path().join("k.wgsl");
    std::fs::write(&file, tilekit::shaders::MATMUL).unwrap();
    let f = s(&file);
    for (args, needle) in [
        (vec!["trace", f], "4 compute entry points"),
        (
            vec!["trace", f, "--entry", "nope"],
            "no compute entry point `nope`",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--workgroups", "0"],
            "at least 1",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--workgroups", "1,2,3,4"],
            "X,Y,Z",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--buffer", "9=zeros:4"],
            "no @group(0) @binding(9)",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--set", "q=1"],
            "no uniform of tiled has a field `q`",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--override", "NOPE=1"],
            "no override constant `NOPE`",
        ),
        (
            vec!["trace", f, "--entry", "tiled", "--workgroups", "1000,1000"],
            "the tracer runs 1 to",
        ),
        (
            vec![
                "trace",
                f,
                "--entry",
                "tiled",
                "--buffer",
                "0=zeros:99999999999",
            ],
            "over the",
        ),
    ] {
        let o = tilekit(&args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(needle), "{args:?}: {t}");
        assert!(!t.contains("panicked"), "{args:?}: {t}");
    }
    // A .npy of a dtype the tracer does not take is named.
    let npy = d.path().join("x.npy");
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }";
    let pad = 64 - (10 + header.len() + 1) % 64;
    let header = format!("{header}{}\n", " ".repeat(pad));
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0u8; 16]);
    std::fs::write(&npy, bytes).unwrap();
    let o = tilekit(&[
        "trace",
        f,
        "--entry",
        "tiled",
        "--buffer",
        &format!("0={}", s(&npy)),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("float64"), "{}", text(&o));
}

#[test]
fn run_after_a_clean_trace_leaves_the_same_words_on_the_adapter() {
    let d = dir("run-clean");
    let good = d.path().join("reverse.wgsl");
    std::fs::write(&good, tilekit::shaders::REVERSE).unwrap();
    let o = trace_reverse(&good, &["--run"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("ran on ") && t.contains("the same 64 words"),
        "{t}"
    );
    let o = trace_reverse(&good, &["--run", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["run"]["same"], true, "{v}");
    assert_eq!(v["run"]["agreement"]["compared"], 64, "{v}");
}

#[test]
fn run_after_a_racy_trace_does_not_run_and_says_why() {
    let d = dir("run-racy");
    let file = racy_reverse(d.path());
    let o = trace_reverse(&file, &["--run", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["run"]["ran"], false, "{v}");
    assert!(v["run"]["agreement"].is_null(), "{v}");
    assert_eq!(v["clean"], false, "{v}");
}
