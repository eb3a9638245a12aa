//! Where a command writes a file (`-o`, `bench --json/--chart/--html`, `tour --html`, the
//! tuner's cache): checked before any work starts, so that a missing directory or a read-only
//! file fails in a second rather than after the whole run, and written so that nothing a user
//! has is destroyed:
//!
//! - a regular file (or none yet) is written to a temporary file beside it, read back and
//!   compared, then renamed over it: the old file stays whole until the new one is complete, and
//!   a failed or refused run leaves it as it was;
//! - a symlink is followed (to its final target, which is then written as above): the link stays
//!   a link, and its target gets the new contents, as the shell's `>` does;
//! - a device (`/dev/null`, `/dev/stdout`) or a FIFO is opened and written into, never replaced
//!   by a file;
//! - a directory or a socket is refused with an error that says what it is.

use crate::error::CliError as Error;
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A checked place to write one file.
#[derive(Clone, Debug)]
pub struct Output {
    /// The path the user gave.
    path: PathBuf,
    /// Where the bytes go, and how.
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    /// A regular file, or a new one: temporary file, read back, rename onto `target` (the path,
    /// or the final target of the symlinks it names).
    Replace { target: PathBuf },
    /// A device or a FIFO: written through.
    Through,
}

fn io_err(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source: e,
    }
}

fn refuse(path: &Path, why: impl Into<String>) -> Error {
    io_err(path, std::io::Error::other(why.into()))
}

/// The path a chain of symlinks ends at (the path itself when it is not one).
fn follow(path: &Path) -> Result<PathBuf, Error> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|e| io_err(path, e))?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(refuse(path, "too many levels of symbolic links"))
}

/// Whether this process may write `path` (which exists).
fn writable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a valid NUL-terminated path; access() only reads it.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    }
    #[cfg(not(unix))]
    {
        fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
    }
}

fn temporary(target: &Path) -> PathBuf {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.tilekit-{}.tmp", std::process::id()))
}

impl Output {
    /// Check `path` before the work: its directory exists and takes new files, or it is a
    /// writable device or FIFO. Nothing is created or changed.
    pub fn prepare(path: &Path) -> Result<Output, Error> {
        if path.as_os_str().is_empty() {
            return Err(refuse(path, "an empty file name"));
        }
        let target = follow(path)?;
        let kind = match fs::metadata(&target) {
            Ok(m) if m.is_dir() => return Err(refuse(path, "is a directory")),
            Ok(m) if m.is_file() => {
                if !writable(&target) {
                    return Err(refuse(path, "is read-only"));
                }
                Kind::Replace { target }
            }
            Ok(m) => {
                #[cfg(unix)]
                {
                    use std::os::unix::fs::FileTypeExt;
                    if m.file_type().is_socket() {
                        return Err(refuse(path, "is a socket, not a file"));
                    }
                }
                let _ = m;
                if !writable(&target) {
                    return Err(refuse(path, "is not writable"));
                }
                Kind::Through
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Kind::Replace { target },
            Err(e) => return Err(io_err(path, e)),
        };
        if let Kind::Replace { target } = &kind {
            // The directory must take the temporary file: try it now, not after the run.
            let tmp = temporary(target);
            let probe = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&tmp);
            match probe {
                Ok(_) => {
                    let _ = fs::remove_file(&tmp);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(refuse(path, "its directory does not exist"));
                }
                Err(e) => return Err(io_err(path, e)),
            }
        }
        Ok(Output {
            path: path.to_path_buf(),
            kind,
        })
    }

    /// The path the user gave.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `bytes`: see the module's description. A regular file is replaced only once the
    /// temporary file has been read back and found equal to `bytes`.
    pub fn write(&self, bytes: &[u8]) -> Result<(), Error> {
        match &self.kind {
            Kind::Through => {
                // Opening a FIFO waits for its reader: say so, rather than wait in silence.
                if is_fifo(&self.path) {
                    eprintln!("waiting for a reader on the FIFO {}", self.path.display());
                }
                let mut f = fs::OpenOptions::new()
                    .write(true)
                    .open(&self.path)
                    .map_err(|e| io_err(&self.path, e))?;
                f.write_all(bytes)
                    .and_then(|_| f.flush())
                    .map_err(|e| io_err(&self.path, e))
            }
            Kind::Replace { target } => {
                let tmp = temporary(target);
                let result = (|| -> std::io::Result<()> {
                    let mut f = fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&tmp)?;
                    f.write_all(bytes)?;
                    f.sync_all()?;
                    drop(f);
                    // What is on disk is what was verified, byte for byte.
                    let mut back = Vec::with_capacity(bytes.len());
                    File::open(&tmp)?.read_to_end(&mut back)?;
                    if back != bytes {
                        return Err(std::io::Error::other(
                            "the file read back differs from what was written",
                        ));
                    }
                    // A file that existed keeps its permissions.
                    if let Ok(m) = fs::metadata(target) {
                        fs::set_permissions(&tmp, m.permissions())?;
                    }
                    fs::rename(&tmp, target)
                })();
                result.map_err(|e| {
                    let _ = fs::remove_file(&tmp);
                    io_err(&self.path, e)
                })
            }
        }
    }
}

/// Whether `path` is a FIFO (a named pipe), whose opening waits for the other end.
pub fn is_fifo(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Output;
    use std::fs;

    /// A scratch folder of its own, removed when the test ends (pass or fail).
    fn dir() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("tilekit-output-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn a_regular_file_is_replaced_whole_and_keeps_its_mode() {
        let scratch = dir();
        let d = scratch.path();
        let p = d.join("x.bin");
        fs::write(&p, b"old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        Output::prepare(&p).unwrap().write(b"new contents").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new contents");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(d).unwrap().count(), 1);
    }

    #[test]
    fn missing_directories_and_directories_are_refused_before_any_work() {
        let scratch = dir();
        let d = scratch.path();
        let e = Output::prepare(&d.join("no/such/dir/x.npy")).unwrap_err();
        assert!(e.to_string().contains("directory does not exist"), "{e}");
        let e = Output::prepare(d).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_stays_a_link_and_its_target_gets_the_bytes() {
        let scratch = dir();
        let d = scratch.path();
        let target = d.join("real.npy");
        fs::write(&target, b"old").unwrap();
        let link = d.join("link.npy");
        std::os::unix::fs::symlink("real.npy", &link).unwrap();
        Output::prepare(&link).unwrap().write(b"through").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"through");
        // A dangling link creates its target, as the shell's `>` does.
        let dangling = d.join("dangling.npy");
        std::os::unix::fs::symlink("made.npy", &dangling).unwrap();
        Output::prepare(&dangling).unwrap().write(b"made").unwrap();
        assert_eq!(fs::read(d.join("made.npy")).unwrap(), b"made");
        assert!(fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_written_through_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let null = std::path::Path::new("/dev/null");
        Output::prepare(null).unwrap().write(b"gone").unwrap();
        assert!(fs::metadata(null).unwrap().file_type().is_char_device());
    }
}
