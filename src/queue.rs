//! Queued calls ([`Gpu::matmul_queue`]): recorded and submitted without a wait, as a CUDA launch
//! returns at once. While the GPU still runs earlier queued work, the calls queued meanwhile are
//! held in one compute pass ([`Held`]) and submitted together once it is done, at most
//! [`QUEUE_BATCH`] at a time: each submission and each compute pass costs both the host and the
//! GPU time of their own (BENCHMARKS.md, "Queued products").

use crate::gpu::{Gpu, Held, Waiting};
use crate::launch::{encode_steps, Step};
use crate::Result;
use std::sync::atomic::Ordering;

impl Gpu {
    /// Record `steps` for a queued call ([`Gpu::matmul_queue`]) into the compute pass of the
    /// calls held (`Held`), and submit without waiting: at once while the GPU has none of the
    /// queued calls' work left, else with the calls that follow, at most [`QUEUE_BATCH`] to a
    /// submission.
    ///
    /// Why it is safe to return now, and to hand the call's scratch buffers back to the pool:
    /// the queue runs submissions, and the passes within one, in order, and wgpu puts a
    /// barrier between one use of a buffer written and the next, so a later call, copy or read
    /// sees what this one wrote and cannot overwrite what it has yet to read. The one thing
    /// that would overtake a call held back is a `queue.write_buffer` (it runs before the next
    /// submission's commands), so every write submits what is held first
    /// ([`Gpu::write_buffer`]), as does every other submission ([`Gpu::submit_one`]) and
    /// [`Gpu::queue`].
    pub(crate) async fn enqueue(&self, steps: &[Step]) -> Result<()> {
        // wgpu learns that a submission is done only when it polls (a submission polls too):
        // ask without blocking, so that calls held back go as soon as the GPU has finished the
        // earlier ones, not when eight have gathered: a short queue then finishes sooner
        // (BENCHMARKS.md, "Queued products").
        if self.in_flight.load(Ordering::Relaxed) > 0 {
            let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
            let _ = self.device.poll(wgpu::PollType::Poll);
        }
        let idle = self.in_flight.load(Ordering::Relaxed) == 0;
        let full = self
            .scoped("queueing kernels", || {
                let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
                let held = pending.get_or_insert_with(|| Held::new(&self.device));
                encode_steps(&mut held.pass, steps, 1);
                held.calls += 1;
                held.calls >= QUEUE_BATCH || idle
            })
            .await?;
        if full {
            self.submit_pending().await?;
        }
        Ok(())
    }

    /// Submit the queued calls held back ([`Gpu::matmul_queue`]), without waiting for them: for
    /// a program that queues work and then does its own for a while before it reads, so that
    /// the GPU is not left idle meanwhile. A read, [`Gpu::synchronize`] and the next call that
    /// waits submit them anyway.
    pub fn flush<'a>(&'a self) -> crate::Call<'a, ()> {
        crate::Call::new(async move { self.submit_pending().await })
    }

    /// Submit the queued calls held, without waiting for them ([`Gpu::submit_held`]). While more
    /// than [`QUEUED_HELD`] submissions are in flight, wait for this one, so that a loop that
    /// never reads does not pile up work (and wgpu's bookkeeping of it) without end.
    async fn submit_pending(&self) -> Result<()> {
        let index = self
            .scoped("queueing kernels", || {
                let _one = self.polling.lock().unwrap_or_else(|e| e.into_inner());
                self.submit_held()
            })
            .await?;
        match index {
            Some(i) if self.in_flight.load(Ordering::Relaxed) > QUEUED_HELD => {
                self.wait_for("queued kernels", Some(i), Waiting::Kernels)
                    .await
            }
            _ => Ok(()),
        }
    }

    /// Wait for everything submitted so far, queued calls included ([`Gpu::matmul_queue`]):
    /// as `torch.cuda.synchronize()`. Reading a buffer ([`Gpu::read`]) waits for the calls
    /// queued before it on its own; this is for a timer, or to learn that the work is done.
    pub fn synchronize<'a>(&'a self) -> crate::Call<'a, ()> {
        crate::Call::new(async move {
            self.submit_pending().await?;
            self.wait_for("queued kernels", None, Waiting::Kernels)
                .await
        })
    }
}

/// Queued calls recorded into one submission at most, while the GPU still runs earlier ones
/// ([`Gpu::enqueue`]): a submission costs the host time and leaves the GPU idle whatever the
/// product, so small queued products run faster several to a submission (BENCHMARKS.md,
/// "Queued products").
pub(crate) const QUEUE_BATCH: usize = 8;

/// Submissions of queued calls a [`Gpu`] leaves in flight before it waits for them to finish:
/// 64 of up to [`QUEUE_BATCH`] calls keep milliseconds of small products ahead of the host, as
/// PyTorch's launch queue does.
pub(crate) const QUEUED_HELD: usize = 64;
