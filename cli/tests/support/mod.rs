//! Shared by the command line's tests: the `tilekit` binary run with arguments (and environment),
//! a scratch folder per test, and the small files they hand it.
#![allow(dead_code)] // each test binary uses some of these

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The `tilekit` binary, run with `args` and `env`, backtraces on.
pub fn tilekit_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tilekit"));
    c.args(args).env("RUST_BACKTRACE", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

pub fn tilekit(args: &[&str]) -> Output {
    tilekit_env(args, &[])
}

/// A scratch folder of its own, removed when the test ends (pass or fail).
pub fn dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("tilekit-test-{name}-"))
        .tempdir()
        .unwrap()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Exit code 2 within `seconds`, one line on stderr containing `needle`, no panic.
pub fn refused_within(args: &[&str], env: &[(&str, &str)], needle: &str, seconds: f64) {
    let t = Instant::now();
    let out = tilekit_env(args, env);
    let took = t.elapsed();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: wanted {needle:?} in {err}");
    assert!(err.lines().count() <= 2, "{args:?}: {err}");
    assert!(
        took < Duration::from_secs_f64(seconds),
        "{args:?} took {took:?} to refuse"
    );
}

/// The bytes of a 1-d `.npy` file of little-endian u32.
pub fn npy_u32(values: &[u32]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend(((total - 10) as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    for v in values {
        out.extend(v.to_le_bytes());
    }
    out
}
