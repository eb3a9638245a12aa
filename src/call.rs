//! [`Call`]: one operation on the GPU, described once, awaited or waited for.
//!
//! Every operation that waits for the GPU is asynchronous underneath, since a browser cannot
//! block. A `Call` is that future: `.await` it in async code, or call [`Call::wait`] in a native
//! program, which blocks the thread until the operation is done. The same method serves both, so
//! there is one method per operation rather than a blocking and an `_async` twin.

use crate::Result;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// An operation on the GPU, not started until it is awaited or waited for.
///
/// ```no_run
/// # fn main() -> tilekit::Result<()> {
/// let gpu = tilekit::Gpu::new().wait()?;
/// let x = gpu.upload("x", &[1.0f32, 2.0, 3.0]).wait()?; // blocking
/// # Ok(()) }
/// # async fn in_async_code(gpu: &tilekit::Gpu) -> tilekit::Result<()> {
/// let x = gpu.upload("x", &[1.0f32, 2.0, 3.0]).await?; // the same call, awaited
/// # Ok(()) }
/// ```
#[must_use = "a Call does nothing until it is awaited or waited for"]
pub struct Call<'a, T> {
    future: Pin<Box<dyn Future<Output = Result<T>> + 'a>>,
}

impl<'a, T> Call<'a, T> {
    /// The call that runs `future`.
    pub(crate) fn new(future: impl Future<Output = Result<T>> + 'a) -> Call<'a, T> {
        Call {
            future: Box::pin(future),
        }
    }

    /// Run the operation to its end, blocking this thread (not on wasm32, where a page cannot
    /// block: `.await` it there).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait(self) -> Result<T> {
        pollster::block_on(self.future)
    }
}

impl<T> Future for Call<'_, T> {
    type Output = Result<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        self.future.as_mut().poll(cx)
    }
}

impl<T> std::fmt::Debug for Call<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Call")
    }
}
