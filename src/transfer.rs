//! Large uploads and readbacks in chunks, through a few staging buffers that the [`Gpu`] keeps
//! between calls, so that the host's copy of one chunk overlaps the GPU's copy of the one before
//! (CUDA copies pageable memory the same way, through pinned buffers of its own).
//!
//! Why: `queue.write_buffer` and `create_buffer_init` stage every upload in a buffer allocated
//! for that call, and a readback into one staging buffer must copy all of it before the host can
//! read any; a whole call from large host slices then took far longer than PyTorch's, and through
//! this ring it does not (BENCHMARKS.md, "Host slices through a staging ring").
//!
//! Natively only: a browser's `writeBuffer` and `mapAsync` stage the data themselves.

use crate::gpu::Waiting;
use crate::pool::Way;
use crate::{Error, Gpu, Result};

/// Bytes per chunk: 8 MiB, with three buffers in flight, ran calls as fast as the other sizes
/// and counts tried (BENCHMARKS.md, "Host slices through a staging ring").
pub const CHUNK: u64 = 8 << 20;

/// Staging buffers in flight, per direction; also how many the pools keep.
pub const RING: usize = 3;

/// Uploads from this size go in chunks: below it `queue.write_buffer` ran whole calls as fast or
/// faster, above it the ring did (BENCHMARKS.md, "Host slices through a staging ring").
pub const CHUNKED_UPLOAD: u64 = 48 << 20;

/// Whether an upload of `bytes` goes through the staging ring.
pub(crate) fn upload_in_chunks(bytes: u64) -> bool {
    cfg!(not(target_arch = "wasm32")) && bytes >= CHUNKED_UPLOAD
}

/// Whether a readback of `bytes` goes through the staging ring: where it is more than one
/// chunk (a read of one chunk or less has nothing to overlap, and is copied in the same
/// submission as the kernels that wrote it).
pub(crate) fn read_in_chunks(bytes: u64) -> bool {
    cfg!(not(target_arch = "wasm32")) && bytes > CHUNK
}

/// A mapping's answer.
pub(crate) type Receiver =
    futures_intrusive::channel::shared::OneshotReceiver<Result<(), wgpu::BufferAsyncError>>;

/// Ask for all of `buffer` mapped in `mode`; the answer comes once the GPU is done with it.
pub(crate) fn map_mode(buffer: &wgpu::Buffer, mode: wgpu::MapMode) -> Receiver {
    let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
    buffer.slice(..).map_async(mode, move |r| {
        let _ = tx.send(r);
    });
    rx
}

/// Wait for a mapping asked for with [`map_mode`].
pub(crate) async fn mapped(rx: Receiver, what: &str) -> Result<()> {
    // Natively the wait before this completed the submission, so the callback has run (or was
    // dropped with the device, which closes the channel) and this returns at once; in a browser
    // the mapping resolves on its event loop.
    match rx.receive().await {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Gpu {
            context: what.to_string(),
            message: e.to_string(),
        }),
        _ => Err(Error::Gpu {
            context: what.to_string(),
            message: "the buffer was not mapped after the submission completed".into(),
        }),
    }
}

const READING: &str = "reading a buffer back";

/// One staging buffer and the submission that uses it, with its mapping's answer.
struct Slot {
    buffer: wgpu::Buffer,
    busy: Option<(Receiver, wgpu::SubmissionIndex)>,
}

impl Slot {
    /// Wait until the GPU is done with this buffer and it is mapped again.
    async fn ready(&mut self, gpu: &Gpu, what: &str) -> Result<()> {
        if let Some((rx, index)) = self.busy.take() {
            gpu.wait_for(what, Some(index), Waiting::Transfer).await?;
            mapped(rx, what).await?;
        }
        Ok(())
    }
}

fn mapping_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Gpu {
        context: what.into(),
        message: e.to_string(),
    }
}

impl Gpu {
    /// Write `contents` (a multiple of 4 bytes) into `dst` from its start: each chunk copied
    /// into a mapped staging buffer, then by the GPU into place, while the next is copied.
    pub(crate) async fn write_in_chunks(
        &self,
        what: &str,
        dst: &wgpu::Buffer,
        contents: &[u8],
    ) -> Result<()> {
        let parts = contents.len().div_ceil(CHUNK as usize);
        let mut slots = self.slots(Way::Up, parts);
        let n = slots.len();
        for (i, part) in contents.chunks(CHUNK as usize).enumerate() {
            let slot = &mut slots[i % n];
            slot.ready(self, what).await?;
            slot.buffer
                .slice(..part.len() as u64)
                .get_mapped_range_mut()
                .map_err(|e| mapping_error(what, e))?
                .copy_from_slice(part);
            slot.buffer.unmap();
            let index = self
                .scoped(what, || {
                    let mut enc = self.device.create_command_encoder(&Default::default());
                    enc.copy_buffer_to_buffer(
                        &slot.buffer,
                        0,
                        dst,
                        i as u64 * CHUNK,
                        part.len() as u64,
                    );
                    self.submit_one(enc.finish())
                })
                .await?;
            // Mapped again once the GPU has copied out of it.
            slot.busy = Some((map_mode(&slot.buffer, wgpu::MapMode::Write), index));
        }
        for slot in &mut slots {
            slot.ready(self, what).await?;
        }
        self.slots_back(Way::Up, slots);
        Ok(())
    }

    /// Read the first `bytes` of `src`: the GPU copies up to [`RING`] chunks ahead of the one
    /// the host is copying out.
    pub(crate) async fn read_in_chunks<T: bytemuck::Pod>(
        &self,
        src: &wgpu::Buffer,
        bytes: u64,
    ) -> Result<Vec<T>> {
        let parts = bytes.div_ceil(CHUNK) as usize;
        let part_bytes = |i: usize| (bytes - i as u64 * CHUNK).min(CHUNK);
        let mut slots = self.slots(Way::Down, parts);
        for (i, slot) in slots.iter_mut().enumerate() {
            self.read_chunk(src, i as u64 * CHUNK, part_bytes(i), slot)
                .await?;
        }
        let n = slots.len();
        let mut out: Vec<T> = Vec::with_capacity(bytes as usize / std::mem::size_of::<T>());
        for i in 0..parts {
            let slot = &mut slots[i % n];
            slot.ready(self, READING).await?;
            {
                let view = slot
                    .buffer
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| mapping_error(READING, e))?;
                let raw = &view[..part_bytes(i) as usize];
                match bytemuck::try_cast_slice::<u8, T>(raw) {
                    Ok(elems) => out.extend_from_slice(elems),
                    Err(_) => out.extend(bytemuck::pod_collect_to_vec::<u8, T>(raw)),
                }
            }
            slot.buffer.unmap();
            if i + n < parts {
                self.read_chunk(src, (i + n) as u64 * CHUNK, part_bytes(i + n), slot)
                    .await?;
            }
        }
        self.slots_back(Way::Down, slots);
        Ok(out)
    }

    /// Staging buffers for a transfer of `parts` chunks going `way`: up to [`RING`], from the
    /// pool where it has them.
    fn slots(&self, way: Way, parts: usize) -> Vec<Slot> {
        (0..RING.min(parts))
            .map(|_| Slot {
                buffer: self.pools.inner.transfer_staging(&self.device, CHUNK, way),
                busy: None,
            })
            .collect()
    }

    /// A finished transfer's staging buffers, back to the pool.
    fn slots_back(&self, way: Way, slots: Vec<Slot>) {
        for slot in slots {
            self.pools
                .inner
                .transfer_staging_back(slot.buffer, way, RING);
        }
    }

    /// The GPU's copy of `bytes` of `src` from `offset` into `slot`, then its mapping asked for.
    async fn read_chunk(
        &self,
        src: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
        slot: &mut Slot,
    ) -> Result<()> {
        let index = self
            .scoped(READING, || {
                let mut enc = self.device.create_command_encoder(&Default::default());
                // Whole words (COPY_BUFFER_ALIGNMENT): the source is padded to them.
                enc.copy_buffer_to_buffer(src, offset, &slot.buffer, 0, bytes.div_ceil(4) * 4);
                self.submit_one(enc.finish())
            })
            .await?;
        slot.busy = Some((map_mode(&slot.buffer, wgpu::MapMode::Read), index));
        Ok(())
    }
}
