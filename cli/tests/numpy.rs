//! NumPy's answer for every `run` kernel × dtype × 1-d/2-d/empty input, compared with the file
//! tilekit wrote (`tests/numpy_e2e.py`). Runs `$TILEKIT_PYTHON` (else `python3`), which needs
//! NumPy: `scripts/test.sh` installs it for that interpreter. Without them the test fails, it
//! does not skip.

use std::process::Command;

#[test]
fn every_kernel_and_dtype_matches_numpy_through_npy_files() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/numpy_e2e.py");
    let python = std::env::var("TILEKIT_PYTHON").unwrap_or_else(|_| "python3".into());
    // Without NumPy the script's traceback would be all a developer sees: say what to do first.
    let probe = Command::new(&python)
        .args(["-c", "import numpy"])
        .output()
        .unwrap_or_else(|e| panic!("{}", needs_numpy(&python, &e.to_string())));
    assert!(
        probe.status.success(),
        "{}",
        needs_numpy(
            &python,
            String::from_utf8_lossy(&probe.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )
    );
    let out = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_tilekit"))
        .output()
        .unwrap_or_else(|e| {
            panic!("{python} with NumPy is needed (scripts/test.sh installs it): {e}")
        });
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "NumPy comparison failed:\n{}\n{err}",
        text.lines()
            .filter(|l| !l.starts_with("ok"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let cases: usize = text
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    assert!(cases >= 100, "only {cases} cases ran:\n{text}");
}

/// What to do when `python` cannot import NumPy.
fn needs_numpy(python: &str, why: &str) -> String {
    format!(
        "this test compares tilekit's .npy files with NumPy, and {python} cannot import it ({why}). \
         Run `bash scripts/test.sh` (it installs NumPy for that interpreter), or \
         `{python} -m pip install numpy`, or set TILEKIT_PYTHON to a Python that has NumPy."
    )
}
