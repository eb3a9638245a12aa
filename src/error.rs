//! One error type for the library: every bad input names the value and the limit it breaks.

use thiserror::Error;

/// Everything that can go wrong in tilekit's library. No public function panics on bad input; it
/// returns one of these, with the offending value and the limit in the message. New kinds may be
/// added (`#[non_exhaustive]`): match the ones you handle and keep a catch-all. The command
/// line's own errors (arguments, files) are its own type.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// wgpu found no adapter at all.
    #[cfg_attr(
        not(target_arch = "wasm32"),
        error(
            "no GPU adapter found ({backends}). On Linux without a GPU, install lavapipe (Mesa's \
             software Vulkan): `sudo apt-get install -y mesa-vulkan-drivers`; with a GPU, install \
             its Vulkan driver"
        )
    )]
    #[cfg_attr(
        target_arch = "wasm32",
        error(
            "this browser offers no WebGPU adapter ({backends}): use Chrome or Edge 113+, Safari \
             26, or Firefox 141+ on Windows, with hardware acceleration on"
        )
    )]
    NoAdapter {
        /// The backends that were searched.
        backends: String,
    },
    /// `TILEKIT_ADAPTER` (or `--adapter`) matched no adapter.
    #[error("no adapter name contains {wanted:?}; available: {}", available.join(", "))]
    AdapterNotFound {
        /// The name fragment asked for.
        wanted: String,
        /// The adapters that exist, by name and backend.
        available: Vec<String>,
    },
    /// The adapter refused to create a device.
    #[error("the adapter refused a device: {0}")]
    RequestDevice(String),
    /// A size that must be at least 1 was 0.
    #[error("{what} must be at least 1, got 0")]
    ZeroSize {
        /// Which size.
        what: String,
    },
    /// Two sizes that must agree do not.
    #[error("dimension mismatch: {what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// What was compared.
        what: String,
        /// The size implied by the other arguments.
        expected: String,
        /// The size given.
        got: String,
    },
    /// A size whose byte count overflows the address space.
    #[error("{what} is too large: {detail}")]
    SizeOverflow {
        /// Which size.
        what: String,
        /// The arithmetic that overflowed.
        detail: String,
    },
    /// A buffer larger than an adapter limit.
    #[error("{what} needs {bytes} bytes, over the adapter's {limit_name} of {limit} bytes")]
    BufferTooLarge {
        /// Which buffer.
        what: String,
        /// Bytes it needs.
        bytes: u64,
        /// The limit's wgpu name.
        limit_name: &'static str,
        /// The limit's value.
        limit: u64,
    },
    /// A tile or workgroup the adapter cannot hold (checked before any pipeline is built, since
    /// wgpu 30 does not check workgroup storage and an override-sized workgroup skips the
    /// invocation check; docs/wgpu-notes.md 1 and 2).
    #[error("{what} needs {needed} for {resource}, over the adapter's {limit_name} of {limit}")]
    TileTooLarge {
        /// The tile or kernel.
        what: String,
        /// The resource that is short (workgroup bytes, invocations, a workgroup dimension).
        resource: &'static str,
        /// How much it needs.
        needed: u64,
        /// The limit's wgpu name.
        limit_name: &'static str,
        /// The limit's value.
        limit: u64,
    },
    /// The planner found no candidate that fits.
    #[error("no {kernel} tile fits this adapter: {reason}")]
    NoPlan {
        /// The kernel family.
        kernel: String,
        /// Why every candidate was refused.
        reason: String,
    },
    /// A variant that needs an optional feature the adapter lacks.
    #[error("{what} needs the adapter feature {feature}, which {adapter} does not have")]
    MissingFeature {
        /// The variant.
        what: String,
        /// The wgpu features missing.
        feature: String,
        /// The adapter's name.
        adapter: String,
    },
    /// The adapter lacks something a variant needs that is not a wgpu feature (a cooperative
    /// matrix configuration, say).
    #[error("{what} is not supported on this adapter ({adapter}): {missing}")]
    Unsupported {
        /// The variant.
        what: String,
        /// The adapter's name.
        adapter: String,
        /// What is missing, and what the adapter has instead.
        missing: String,
    },
    /// A wait on the GPU took longer than the [`crate::GpuOptions::timeout`].
    #[error("{what} did not finish within {seconds} s (the GPU timeout; GpuOptions::timeout or TILEKIT_TIMEOUT raise it)")]
    Timeout {
        /// What was waited for.
        what: String,
        /// The timeout, seconds.
        seconds: f64,
    },
    /// The device was lost (destroyed, reset by the driver, or removed).
    #[error("the GPU device was lost: {reason}")]
    DeviceLost {
        /// What wgpu reported.
        reason: String,
    },
    /// A name that is not one of the choices.
    #[error("unknown {what} {got:?}; choose one of: {}", choices.join(", "))]
    Unknown {
        /// What kind of name.
        what: &'static str,
        /// The name given.
        got: String,
        /// The valid names.
        choices: Vec<String>,
    },
    /// An argument a kernel cannot take: a tile for a kernel that has none, an element size it
    /// does not move, operands of another element type.
    #[error("{what}: {why}")]
    InvalidArgument {
        /// The argument and the kernel.
        what: String,
        /// Why not, and what it takes.
        why: String,
    },
    /// A tile label that is not one of the kernel's candidates.
    #[error("the {kernel} kernel has no tile {got:?}; its tiles: {}", choices.join(", "))]
    UnknownTile {
        /// The kernel (`tiled-matmul`).
        kernel: String,
        /// The tile given (its label, or its constants).
        got: String,
        /// Its candidates' labels.
        choices: Vec<String>,
    },
    /// The autotuner's cache could not be read or written.
    #[error("the tuning cache {path}: {message}")]
    Cache {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// wgpu reported a validation or out-of-memory error.
    #[error("GPU error in {context}: {message}")]
    Gpu {
        /// What tilekit was doing.
        context: String,
        /// wgpu's message.
        message: String,
    },
    /// A value outside what the requested element type can hold.
    #[error("{what} is {value}, outside {limit}")]
    OutOfRange {
        /// Which value.
        what: String,
        /// The value.
        value: String,
        /// The range it breaks.
        limit: String,
    },
    /// A verification against the CPU reference failed.
    #[error("verification failed for {what}: {detail}")]
    Verification {
        /// Which kernel.
        what: String,
        /// First mismatch.
        detail: String,
    },
}

/// `Result` with tilekit's [`Error`](enum@Error).
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn zero(what: impl Into<String>) -> Self {
        Error::ZeroSize { what: what.into() }
    }
    pub(crate) fn mismatch(
        what: impl Into<String>,
        expected: impl ToString,
        got: impl ToString,
    ) -> Self {
        Error::DimensionMismatch {
            what: what.into(),
            expected: expected.to_string(),
            got: got.to_string(),
        }
    }
}
