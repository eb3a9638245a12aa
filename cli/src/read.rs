//! Reading the text files a user names (a shader, a bench file), bounded.

use crate::run::CliError;

fn io_err(p: &std::path::Path, e: std::io::Error) -> CliError {
    CliError::Io {
        path: p.display().to_string(),
        source: e,
    }
}

/// The text of `p`, read only up to `cap` bytes: a file past them (`/dev/zero`, a log given by
/// mistake) is refused once the cap is reached, not read until memory runs out.
pub fn read_capped(p: &std::path::Path, cap: u64, what: &str) -> Result<String, CliError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(p)
        .and_then(|f| f.take(cap + 1).read_to_end(&mut bytes))
        .map_err(|e| io_err(p, e))?;
    if bytes.len() as u64 > cap {
        return Err(CliError::Usage(format!(
            "{}: more than the {} MiB {what} may have",
            p.display(),
            cap >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        io_err(
            p,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("not UTF-8 text: {e}"),
            ),
        )
    })
}
