//! Every input the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) were ever given as a regression,
//! kept in `fuzz/regressions/TARGET/`, runs through the same function the target calls, here in
//! the ordinary test suite: each must end (a typed error or a good array, never a panic) within
//! a few seconds. The first of them, a `.npy` header whose `fortran_order` opens 32 brackets,
//! once held the reader for hours.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The longest one input may take in a debug build (the bracket file took hours before the
/// header parser was rewritten; a good input takes milliseconds).
const LIMIT: Duration = Duration::from_secs(5);

fn each_input(target: &str, run: fn(Vec<u8>)) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let (tx, rx) = mpsc::channel();
        let t0 = Instant::now();
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| run(data));
            let _ = tx.send(outcome.is_ok());
        });
        match rx.recv_timeout(LIMIT) {
            Ok(true) => {}
            Ok(false) => panic!("{}: the {target} target panicked", f.display()),
            Err(_) => panic!(
                "{}: the {target} target did not finish in {LIMIT:?}",
                f.display()
            ),
        }
        eprintln!("{}: {:?}", f.display(), t0.elapsed());
    }
    files.len()
}

#[test]
fn every_npy_regression_ends_quickly_without_a_panic() {
    let n = each_input("npy", |d| tilekit_cli::fuzzing::npy(&d));
    assert!(n >= 4, "only {n} npy regressions");
}

#[test]
fn every_argument_list_regression_ends_quickly_without_a_panic() {
    let n = each_input("cli_args", |d| tilekit_cli::fuzzing::cli_bytes(&d));
    assert!(n >= 3, "only {n} argument-list regressions");
}
