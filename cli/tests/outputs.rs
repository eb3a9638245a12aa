//! Nothing a user has is ever destroyed, through the `tilekit` binary: `-o` into a device, a
//! FIFO (with a reader or waiting for one, and saying so), a symlink (dangling too) writes
//! through and never replaces the node or the link with a file; a failed or refused run leaves an
//! existing output file as it was; a missing directory or an unwritable cache fails before the
//! work; two outputs on one path are refused before any work.

mod support;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use support::{dir, npy_u32, refused_within, s, stderr, tilekit};

/// What `run reverse 10 -o` writes: 9, 8, ..., 0 as uint32.
fn reversed_ten() -> Vec<u8> {
    npy_u32(&(0..10).rev().collect::<Vec<u32>>())
}

#[cfg(unix)]
fn file_type(p: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(p).unwrap().file_type()
}

#[cfg(unix)]
#[test]
fn output_into_a_device_writes_through_and_keeps_the_node() {
    use std::os::unix::fs::FileTypeExt;
    let scratch = dir("device");
    let d = scratch.path();
    // A device node of our own where we may make one (root): a test must not risk the machine's
    // /dev/null. Without the right to make one, /dev/null cannot be replaced either.
    let own = d.join("null");
    let made = Command::new("mknod")
        .args([s(&own), "c", "1", "3"])
        .status()
        .is_ok_and(|st| st.success());
    let node = if made {
        own
    } else {
        PathBuf::from("/dev/null")
    };
    let out = tilekit(&["run", "reverse", "100", "-o", s(&node)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        file_type(&node).is_char_device(),
        "{node:?} is no longer a device"
    );
}

#[cfg(unix)]
#[test]
fn output_into_a_fifo_is_written_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let scratch = dir("fifo");
    let d = scratch.path();
    let fifo = d.join("pipe.npy");
    assert!(Command::new("mkfifo")
        .arg(s(&fifo))
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = tilekit(&["run", "reverse", "10", "-o", s(&fifo)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(reader.join().unwrap(), reversed_ten());
    assert!(file_type(&fifo).is_fifo(), "the FIFO was replaced");
}

#[cfg(unix)]
#[test]
fn output_through_a_symlink_updates_its_target_and_keeps_the_link() {
    let scratch = dir("link");
    let d = scratch.path();
    std::fs::write(d.join("target.npy"), b"old").unwrap();
    std::os::unix::fs::symlink("target.npy", d.join("link.npy")).unwrap();
    let out = tilekit(&["run", "reverse", "10", "-o", s(&d.join("link.npy"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(file_type(&d.join("link.npy")).is_symlink());
    assert_eq!(std::fs::read(d.join("target.npy")).unwrap(), reversed_ten());
    // A dangling link: its target is created, the link stays.
    std::os::unix::fs::symlink("new.npy", d.join("dangling.npy")).unwrap();
    let out = tilekit(&["run", "reverse", "10", "-o", s(&d.join("dangling.npy"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(file_type(&d.join("dangling.npy")).is_symlink());
    assert_eq!(std::fs::read(d.join("new.npy")).unwrap(), reversed_ten());
}

#[test]
fn a_failed_run_leaves_the_old_output_as_it_was() {
    let scratch = dir("failed");
    let d = scratch.path();
    let out_path = d.join("out.npy");
    std::fs::write(&out_path, b"the user's file").unwrap();
    // Input errors after -o was accepted: an unreadable input, an empty min.
    std::fs::write(d.join("bad.npy"), b"not numpy").unwrap();
    std::fs::write(d.join("empty.npy"), npy_u32(&[])).unwrap();
    for args in [
        vec!["run", "reverse", "--input", s(&d.join("bad.npy"))],
        vec![
            "run",
            "reduce",
            "--op",
            "min",
            "--input",
            s(&d.join("empty.npy")),
        ],
        vec!["run", "transpose", "100000", "100000"],
    ] {
        let mut a = args.clone();
        a.extend(["-o", s(&out_path)]);
        let out = tilekit(&a);
        assert_eq!(out.status.code(), Some(2), "{a:?}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(&out_path).unwrap(),
            b"the user's file",
            "{a:?}"
        );
    }
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 3);
}

#[test]
fn output_places_that_cannot_be_written_fail_before_the_work() {
    let scratch = dir("late");
    let d = scratch.path();
    let missing = d.join("no/such/dir");
    // Each would otherwise run for minutes on lavapipe before failing.
    let x = |f: &str| s(&missing.join(f)).to_string();
    refused_within(
        &["tour", "--html", &x("tour.html")],
        &[],
        "directory does not exist",
        10.0,
    );
    refused_within(
        &["bench", "--quick", "--json", &x("b.json")],
        &[],
        "directory does not exist",
        10.0,
    );
    refused_within(
        &["bench", "--quick", "--html", &x("b.html")],
        &[],
        "directory does not exist",
        10.0,
    );
    refused_within(
        &["run", "reverse", "10", "-o", s(d)],
        &[],
        "is a directory",
        10.0,
    );
    // A cache "directory" that is a file.
    let file = d.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    refused_within(
        &["tune", "--quick"],
        &[("TILEKIT_CACHE_DIR", s(&file))],
        "a-file",
        10.0,
    );
}

#[test]
fn two_outputs_on_one_path_are_refused_before_any_work() {
    let d = dir("two-outputs");
    let same = d.path().join("same.json");
    let arg = s(&same);
    refused_within(
        &["bench", "--quick", "--json", arg, "--html", arg],
        &[],
        "is given for two outputs",
        10.0,
    );
    assert!(!same.exists(), "nothing is written");
}

/// A FIFO given as `-o` with no reader yet: the command says it waits, then writes when one
/// comes.
#[test]
fn a_fifo_without_a_reader_is_said_to_wait() {
    let scratch = dir("fifo-wait");
    let fifo = scratch.path().join("pipe.npy");
    assert!(Command::new("mkfifo")
        .arg(s(&fifo))
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            std::fs::read(fifo).unwrap()
        })
    };
    let out = tilekit(&["run", "reverse", "10", "-o", s(&fifo)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("waiting for a reader on the FIFO"),
        "{}",
        stderr(&out)
    );
    assert_eq!(reader.join().unwrap(), reversed_ten());
}
