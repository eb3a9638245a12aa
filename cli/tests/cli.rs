//! The `tilekit` binary end to end: .npy in and out against the CPU reference, --json, and bad
//! input answered with one line and exit code 2 (never a panic or a backtrace).

#[path = "../../tests/common/mod.rs"]
mod common;
use common::npy;
use common::random_f32;
mod support;
use std::path::Path;
use std::process::{Command, Output};
use support::{dir, s, tilekit};
use tilekit::kernels::matmul;

/// `tilekit run matmul` on `d`'s a.npy and b.npy, writing c.npy there, with `extra` arguments.
fn matmul_in(d: &Path, extra: &[&str]) -> Output {
    let (a, b, c) = (d.join("a.npy"), d.join("b.npy"), d.join("c.npy"));
    let mut args = vec!["run", "matmul", "--a", s(&a), "--b", s(&b), "-o", s(&c)];
    args.extend_from_slice(extra);
    tilekit(&args)
}

/// A bad input: exit code 2, one line on stderr containing `needle`, no panic.
fn refused(args: &[&str], needle: &str) {
    let out = tilekit(args);
    let err = String::from_utf8_lossy(&out.stderr);
    let err_lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    assert!(
        err_lines.iter().any(|l| l.contains(needle)),
        "{args:?}: wanted {needle:?} in {err}"
    );
    assert!(err_lines.len() <= 2, "{args:?}: more than one line: {err}");
}

#[test]
fn matmul_npy_round_trip() {
    let scratch = dir("matmul");
    let d = scratch.path();
    let (m, k, n) = (17, 33, 5);
    let a = random_f32(m * k, 1);
    let b = random_f32(k * n, 2);
    npy::save(&d.join("a.npy"), &a, &[m as u64, k as u64]);
    // B as float64: converted with a warning.
    let b64: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    npy::save(&d.join("b.npy"), &b64, &[k as u64, n as u64]);
    let c_path = d.join("c.npy");
    let out = matmul_in(d, &["--json"]);
    let j = common::json_of(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("float64 is computed in float32"));
    assert_eq!(j["verified"], true);
    assert_eq!(j["output"], s(&c_path));
    assert!(j["run"]["timing"]["seconds"].as_f64().unwrap() > 0.0);
    // float32 @ float64 is float64 in NumPy: so is the file.
    let (c, shape) = npy::read::<f64>(&c_path);
    assert_eq!(shape, vec![m as u64, n as u64]);
    let c: Vec<f32> = c.iter().map(|&v| v as f32).collect();
    let (e, mag) = matmul::reference(&a, &b, m, k, n);
    matmul::verify(&c, &e, &mag, k).unwrap();
}

/// A float16 product past f16's range comes back as NumPy's `A @ B` gives it: an infinity of
/// the element's sign, written to the file (not refused as a wrong result), the other elements
/// exact. A = [[200]*4, [1, 2, 3, 4]], B's columns [100]*4, [-100]*4, [0.5, 0.25, 1, 2].
#[test]
fn a_float16_product_past_its_range_is_an_infinity_as_in_numpy() {
    use half::f16;
    let scratch = dir("matmul-f16-overflow");
    let d = scratch.path();
    let half_file =
        |name: &str, values: &[f32], shape: &[u64]| half_npy(&d.join(name), values, shape);
    half_file(
        "a.npy",
        &[200.0, 200.0, 200.0, 200.0, 1.0, 2.0, 3.0, 4.0],
        &[2, 4],
    );
    #[rustfmt::skip]
    let b = [100.0, -100.0, 0.5, 100.0, -100.0, 0.25, 100.0, -100.0, 1.0, 100.0, -100.0, 2.0];
    half_file("b.npy", &b, &[4, 3]);
    let c_path = d.join("c.npy");
    let out = matmul_in(d, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (descr, shape, data) = npy::read_raw(&c_path);
    assert_eq!((descr.as_str(), shape), ("<f2", vec![2, 3]));
    let c: Vec<f32> = data
        .chunks_exact(2)
        .map(|h| f16::from_le_bytes([h[0], h[1]]).to_f32())
        .collect();
    let inf = f32::INFINITY;
    assert_eq!(c, [inf, -inf, 750.0, 1000.0, -1000.0, 12.0]);
}

/// A float16 file of `values` with `shape`.
fn half_npy(path: &Path, values: &[f32], shape: &[u64]) {
    let data: Vec<u8> = values
        .iter()
        .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
        .collect();
    std::fs::write(path, npy::bytes_of("<f2", shape, &data)).unwrap();
}

/// A float32 sum past f32's range is written as NumPy's `np.sum` gives it, an infinity of its
/// sign, not refused as a wrong result; `--json` prints one object that says it verified.
#[test]
fn a_float32_sum_past_its_range_is_an_infinity_as_in_numpy() {
    let scratch = dir("reduce-f32-overflow");
    let x = scratch.path().join("big.npy");
    npy::save(&x, &[3e38f32, 3e38, 1.0], &[3]);
    let out = tilekit(&["run", "reduce", "--input", s(&x), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let j: serde_json::Value = serde_json::from_str(&text).expect("one JSON object");
    assert_eq!(j["verified"], serde_json::json!(true), "{text}");
}

/// A float16 sum past f16's range is written as NumPy's `np.sum` gives it, an infinity of its
/// sign, not refused as a wrong result; one inside the range is the sum.
#[test]
fn a_float16_sum_past_its_range_is_an_infinity_as_in_numpy() {
    let scratch = dir("reduce-f16-overflow");
    let d = scratch.path();
    for (name, values, want) in [
        ("up.npy", vec![60000.0f32, 6000.0, 3.0], f32::INFINITY),
        (
            "down.npy",
            vec![-60000.0f32, -6000.0, 3.0],
            f32::NEG_INFINITY,
        ),
        ("inside.npy", vec![30000.0f32, 2000.0, -16.0], 31984.0),
    ] {
        let (x, r) = (d.join(name), d.join(format!("sum-{name}")));
        half_npy(&x, &values, &[3]);
        let out = tilekit(&["run", "reduce", "--input", s(&x), "-o", s(&r)]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (descr, shape, data) = npy::read_raw(&r);
        assert_eq!((descr.as_str(), shape), ("<f2", vec![]), "{name}");
        let got = half::f16::from_le_bytes([data[0], data[1]]).to_f32();
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn reduce_transpose_reverse_histogram_from_npy() {
    let scratch = dir("others");
    let d = scratch.path();
    let x: Vec<i32> = (0..1001).map(|i| (i * 7919 % 2001) - 1000).collect();
    npy::save(&d.join("x.npy"), &x, &[x.len() as u64]);
    let out = tilekit(&[
        "run",
        "reduce",
        "--input",
        s(&d.join("x.npy")),
        "--op",
        "min",
        "--json",
    ]);
    let j = common::json_of(&out);
    assert_eq!(j["result"], *x.iter().min().unwrap());

    let t = random_f32(7 * 13, 5);
    npy::save(&d.join("t.npy"), &t, &[7, 13]);
    let out = tilekit(&[
        "run",
        "transpose",
        "--input",
        s(&d.join("t.npy")),
        "-o",
        s(&d.join("tt.npy")),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (tt, shape) = npy::read::<f32>(&d.join("tt.npy"));
    assert_eq!(shape, vec![13, 7]);
    assert_eq!(tt[3 * 7 + 2], t[2 * 13 + 3]);

    let out = tilekit(&[
        "run",
        "reverse",
        "--input",
        s(&d.join("x.npy")),
        "-o",
        s(&d.join("r.npy")),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The dtype survives: int32 in, int32 out.
    let (r, _) = npy::read::<i32>(&d.join("r.npy"));
    assert_eq!(r[0], x[1000]);

    let bytes: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 256) as u8).collect();
    npy::save(&d.join("h.npy"), &bytes, &[bytes.len() as u64]);
    let out = tilekit(&["run", "histogram", "--input", s(&d.join("h.npy")), "--json"]);
    let j = common::json_of(&out);
    let mut expected = [0u64; 256];
    bytes.iter().for_each(|&b| expected[b as usize] += 1);
    assert_eq!(
        j["bins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect::<Vec<_>>(),
        expected.to_vec()
    );
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let scratch = dir("bad");
    let d = scratch.path();
    refused(
        &[
            "run",
            "matmul",
            "--a",
            s(&d.join("missing.npy")),
            "--b",
            s(&d.join("missing.npy")),
        ],
        "missing.npy",
    );
    std::fs::write(d.join("magic.npy"), b"not numpy at all, just text").unwrap();
    refused(
        &["run", "reduce", "--input", s(&d.join("magic.npy"))],
        "not a valid .npy file",
    );
    // A truncated file: a valid header, half the data.
    npy::save(&d.join("full.npy"), &random_f32(1000, 1), &[1000]);
    let full = std::fs::read(d.join("full.npy")).unwrap();
    std::fs::write(d.join("trunc.npy"), &full[..full.len() / 2]).unwrap();
    refused(
        &["run", "reduce", "--input", s(&d.join("trunc.npy"))],
        "trunc.npy",
    );
    // Shape mismatch names both shapes.
    npy::save(&d.join("a.npy"), &random_f32(6, 1), &[2, 3]);
    npy::save(&d.join("b.npy"), &random_f32(8, 2), &[4, 2]);
    refused(
        &[
            "run",
            "matmul",
            "--a",
            s(&d.join("a.npy")),
            "--b",
            s(&d.join("b.npy")),
        ],
        "A is 2×3",
    );
    // An unsupported dtype.
    // An int64 file: six float32 values' bytes relabelled as three int64.
    npy::save(&d.join("f6.npy"), &[1.0f32; 6], &[6]);
    let mut i64_bytes = std::fs::read(d.join("f6.npy")).unwrap();
    let pos = i64_bytes.windows(3).position(|w| w == b"<f4").unwrap();
    i64_bytes.splice(pos..pos + 3, b"<i8".iter().cloned());
    let pos = i64_bytes.windows(4).position(|w| w == b"(6,)").unwrap();
    i64_bytes.splice(pos..pos + 4, b"(3,)".iter().cloned());
    std::fs::write(d.join("i64.npy"), &i64_bytes).unwrap();
    refused(
        &["run", "reduce", "--input", s(&d.join("i64.npy"))],
        "unsupported dtype",
    );
    // Fortran order.
    let mut fortran = std::fs::read(d.join("a.npy")).unwrap();
    let pos = fortran.windows(5).position(|w| w == b"False").unwrap();
    fortran.splice(pos..pos + 5, b"True ".iter().cloned());
    std::fs::write(d.join("f.npy"), &fortran).unwrap();
    refused(
        &["run", "transpose", "--input", s(&d.join("f.npy"))],
        "Fortran",
    );
    // A matrix over the storage binding size: names the limit and the size.
    let side =
        (((common::gpu().limits().max_storage_buffer_binding_size / 4) as f64).sqrt() as u64 + 1)
            .to_string();
    refused(
        &["run", "matmul", &side, "1", &side],
        "max_storage_buffer_binding_size",
    );
    // An unknown adapter, a tile the adapter cannot hold, a zero size.
    refused(
        &["--adapter", "no-such-gpu", "run", "copy", "10"],
        "no-such-gpu",
    );
    refused(&["--adapter", "no-such-gpu", "info"], "no-such-gpu");
    refused(
        &[
            "run",
            "matmul",
            "8",
            "8",
            "8",
            "--variant",
            "tiled",
            "--tile",
            "TILE=64",
        ],
        "TILE=64",
    );
    refused(&["run", "matmul", "0", "8", "8"], "at least 1");
    refused(&["run", "reduce", "10", "--op", "mean"], "mean");
}

#[test]
fn info_and_plan_speak_json() {
    let j = common::json_of(&tilekit(&["info", "--json"]));
    assert_eq!(j["schema"], 1);
    assert!(
        j["adapters"][0]["limits"]["max_compute_workgroup_storage_size"]
            .as_u64()
            .unwrap()
            >= 16384
    );
    let out = tilekit(&[
        "plan",
        "tiled-matmul",
        "1000",
        "1000",
        "1000",
        "--limits",
        "webgpu-default",
        "--json",
    ]);
    let j = common::json_of(&out);
    let chosen = j["plan"]["chosen"].as_u64().unwrap() as usize;
    assert_eq!(j["plan"]["candidates"][chosen]["label"], "TILE=16");
    let out = tilekit(&[
        "plan",
        "tiled-matmul",
        "--limits",
        "webgpu-default",
        "--profile",
        "device-d",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("✓") && text.contains("why:") && text.contains("device-d"),
        "{text}"
    );
}

/// `tilekit plan` under the H100 preset and the hopper profile scores the pipelined blocks with the
/// rates shipped for that profile (the same the library uses on such a GPU), shows them, and leaves
/// them out with `TILEKIT_MEASURED=0`: at 1024×4096×512 a 128×256 block with them (64×64×8 ran 5–8%
/// behind it there on the H100, BENCHMARKS.md, "Measured rates for the wave model"), 64×64×8
/// without. The cooperative kernel's too (an f16-only kernel): at 8192×8192×64 128×64 with them (96
/// µs against 256×64's 103), 256×64 without (each block's rate then taken from its reuse). No GPU
/// is opened.
#[test]
fn plan_under_a_preset_uses_its_profiles_shipped_rates() {
    let plan = |kernel: &str, sizes: [&str; 3], measured: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_tilekit"))
            .args(["plan", kernel])
            .args(sizes)
            .args(["--limits", "h100", "--profile", "hopper", "--json"])
            .env("TILEKIT_MEASURED", measured)
            .output()
            .unwrap();
        let j = common::json_of(&out);
        j["plan"].clone()
    };
    let chosen = |p: &serde_json::Value| {
        let c = &p["candidates"][p["chosen"].as_u64().unwrap() as usize];
        (c["label"].as_str().unwrap().to_string(), c["rate"].clone())
    };
    let rates = tilekit::kernels::matmul::tune::measured_defaults("hopper")
        .unwrap()
        .rates;
    let pipelined = ("pipelined-matmul", ["1024", "4096", "512"]);
    let with = plan(pipelined.0, pipelined.1, "1");
    let (label, rate) = chosen(&with);
    assert!(label.starts_with("128x256x"), "{with}");
    assert_eq!(rate.as_f64(), Some(rates["pipelined"][&label]));
    assert!(with["why"]
        .as_str()
        .unwrap()
        .contains("of the fastest block's rate"));
    let without = plan(pipelined.0, pipelined.1, "0");
    assert_eq!(
        chosen(&without),
        ("64x64x8".to_string(), serde_json::Value::Null)
    );
    let coop = ("coop-matmul", ["8192", "8192", "64"]);
    let (label, rate) = chosen(&plan(coop.0, coop.1, "1"));
    assert_eq!(label, "128x64x16");
    assert_eq!(rate.as_f64(), Some(rates["coop"][&label]));
    assert_eq!(
        chosen(&plan(coop.0, coop.1, "0")),
        ("256x64x16".to_string(), serde_json::Value::Null)
    );
}

#[test]
fn every_run_subcommand_verifies_random_data() {
    for args in [
        vec![
            "run",
            "matmul",
            "33",
            "17",
            "9",
            "--variant",
            "tiled",
            "--verify",
            "--json",
        ],
        vec![
            "run", "reduce", "1001", "--type", "u32", "--op", "max", "--json",
        ],
        vec![
            "run",
            "transpose",
            "9",
            "31",
            "--variant",
            "tiled",
            "--json",
        ],
        vec!["run", "reverse", "64", "--variant", "static", "--json"],
        vec!["run", "reverse", "100", "--variant", "dynamic", "--json"],
        vec!["run", "histogram", "3001", "--variant", "global", "--json"],
        vec!["run", "copy", "1003", "--width", "vec4", "--json"],
        vec!["run", "carve", "77", "--json"],
        vec!["run", "blur", "30", "20", "--radius", "2", "--json"],
    ] {
        let out = tilekit(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert!(
            j["run"]["timing"]["seconds"].as_f64().unwrap() > 0.0,
            "{args:?}"
        );
    }
}

/// `tilekit plan` knows every kernel `tilekit run` has: each plans at its default sizes.
#[test]
fn plan_knows_every_kernel_run_has() {
    let cmd = tilekit_cli::command();
    let run = cmd
        .get_subcommands()
        .find(|c| c.get_name() == "run")
        .expect("a run command");
    let names: Vec<String> = run
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    assert!(names.len() >= 8, "{names:?}");
    for name in names {
        let out = tilekit(&["plan", &name]);
        assert!(
            out.status.success(),
            "plan {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// JSON has no NaN or infinity: a sum that is one says which, as NumPy prints it, where a missing
/// result would be null.
#[test]
fn a_nan_or_infinite_sum_is_named_in_json_not_null() {
    let scratch = dir("reduce-special");
    for (name, values, want) in [
        ("nan.npy", vec![1.0f32, f32::NAN, 2.0], "nan"),
        ("inf.npy", vec![f32::INFINITY, 1.0], "inf"),
        ("minus.npy", vec![f32::NEG_INFINITY, 1.0], "-inf"),
    ] {
        let x = scratch.path().join(name);
        npy::save(&x, &values, &[values.len() as u64]);
        let out = tilekit(&["run", "reduce", "--input", s(&x), "--json"]);
        let text = String::from_utf8_lossy(&out.stdout);
        let j: serde_json::Value = serde_json::from_str(&text).expect("one JSON object");
        assert_eq!(j["result"], serde_json::json!(want), "{name}: {text}");
        assert_eq!(j["verified"], serde_json::json!(true), "{name}: {text}");
    }
}

/// What `tilekit run` refuses for its sizes, `tilekit plan` refuses with the same words.
#[test]
fn plan_refuses_the_sizes_run_refuses() {
    for args in [
        &["matmul", "0", "4", "4"][..],
        &["copy", "0"],
        &["carve", "0"],
    ] {
        let run = tilekit(&[&["run"][..], args].concat());
        let plan = tilekit(&[&["plan"][..], args].concat());
        assert_eq!(run.status.code(), Some(2), "run {args:?}");
        assert_eq!(plan.status.code(), Some(2), "plan {args:?}");
        let said = |o: &std::process::Output| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .find(|l| l.starts_with("error: "))
                .unwrap_or("")
                .to_string()
        };
        assert_eq!(said(&run), said(&plan), "{args:?}");
    }
}
