//! # tilekit
//!
//! The CUDA shared-memory lessons (PMPP chapter 4, the reduction and `__shared__` articles, the
//! CUDA Handbook's memory chapter) on portable GPU compute: WGSL compute shaders run through wgpu
//! on Vulkan, Metal, DX12, OpenGL and, headless, on lavapipe. Workgroup memory is shared memory;
//! tile sizes are `override` constants chosen by a [`plan::Planner`] from the adapter's limits.
//!
//! ```no_run
//! # fn main() -> tilekit::Result<()> {
//! use tilekit::kernels::{matmul::Selection, reduce::Op};
//! let gpu = tilekit::Gpu::new().wait()?;              // best adapter, its own limits
//! let (m, k, n) = (300, 200, 100);
//! let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
//! let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32).collect();
//! let (c, run) = gpu.matmul(&a, &b, (m, k, n), &Selection::Auto).wait()?; // chosen for this shape
//! assert_eq!(c.len(), m * n);
//! let s = gpu.reduce(&a, Op::Sum).wait()?;
//! println!("sum = {s}, {} on {}", run.variant, gpu.summary.name);
//! # Ok(()) }
//! ```
//!
//! Every operation that waits for the GPU returns a [`Call`]: `.wait()` blocks, `.await` runs it
//! in async code. The lessons, the exercises and the command line are the crates
//! `tilekit-course` and `tilekit-cli`, built on this one's public API.

#![warn(missing_docs)]

// The library: what a program calls.
mod buffer;
mod call;
pub mod ceiling;
mod compile;
mod convert;
mod custom;
mod dispatch;
mod error;
mod family;
pub mod gpu;
pub mod kernels;
mod launch;
pub mod limits;
pub mod measure;
mod pipeline;
pub mod plan;
pub mod pool;
mod queue;
pub mod random;
pub mod shaders;
pub mod transfer;

pub use buffer::{DeviceBuffer, Input, POISON};
pub use call::Call;
pub use convert::ConvertTo;
pub use dispatch::Dispatch;
pub use error::{Error, Result};
pub use gpu::{Gpu, GpuOptions};
pub use launch::{Clock, Timing};
pub use limits::{DeviceProfile, Limits};
pub use measure::{Measured, Repeat, Speed, SIDE_BY_SIDE_SECONDS, STEADY_RUNS};
pub use pipeline::Shader;
pub use plan::{Plan, Planner, Tiling};

/// The README's Rust example, compiled and run by `cargo test` (doctests) so that it cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
