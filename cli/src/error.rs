//! The command line's own errors: its arguments and its files, beside the library's.

use tilekit::Error;

/// What the command line can get wrong beyond the library's [`Error`]: its arguments and its
/// files. Each says the value and what is wrong with it, in one line.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The library refused the work.
    #[error(transparent)]
    Library(#[from] Error),
    /// Arguments that do not describe a run.
    #[error("{0}")]
    Usage(String),
    /// A `.npy` file that cannot be used.
    #[error("{path}: {message}")]
    Npy {
        /// The file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A file that cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
}
