//! Device buffers: upload a slice, read a buffer back, poison an output before a run.

use crate::gpu::Gpu;
use crate::pipeline::Shader;
use crate::pool::{next_id, Bind, Detached, Inner};
use crate::{Error, Result};
use bytemuck::Pod;
use std::marker::PhantomData;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// The poison written into outputs before a run: a quiet NaN as f32 and, as an integer,
/// 2,145,299,902, which no test input produces.
pub const POISON: u32 = 0x7FDE_ADBE;

/// A storage buffer of `len` elements of `T` on the device. Kernels take and return these, so
/// work chains without a readback. Dropping one returns it to the [`Gpu`]'s pool
/// ([`crate::pool`]) or frees it.
pub struct DeviceBuffer<T> {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) id: u64,
    len: usize,
    pool: Arc<Inner>,
    _t: PhantomData<T>,
}

/// Data a kernel reads: a host slice, uploaded for the call, or a buffer already on the device
/// (data used again stays there, as CUDA's device pointers do). `&[T]`, `&Vec<T>`, `&[T; N]` and
/// `&DeviceBuffer<T>` all convert into it, so one call takes either.
#[derive(Debug)]
pub enum Input<'a, T> {
    /// Host data, uploaded for the call.
    Host(&'a [T]),
    /// A buffer on the device.
    Device(&'a DeviceBuffer<T>),
}

impl<T> Clone for Input<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Input<'_, T> {}

impl<'a, T> From<&'a [T]> for Input<'a, T> {
    fn from(data: &'a [T]) -> Self {
        Input::Host(data)
    }
}

impl<'a, T> From<&'a Vec<T>> for Input<'a, T> {
    fn from(data: &'a Vec<T>) -> Self {
        Input::Host(data)
    }
}

impl<'a, T, const N: usize> From<&'a [T; N]> for Input<'a, T> {
    fn from(data: &'a [T; N]) -> Self {
        Input::Host(data)
    }
}

impl<'a, T> From<&'a DeviceBuffer<T>> for Input<'a, T> {
    fn from(buffer: &'a DeviceBuffer<T>) -> Self {
        Input::Device(buffer)
    }
}

/// An [`Input`] on the device: the caller's buffer, or the upload of its host data.
pub(crate) enum Resident<'a, T> {
    Borrowed(&'a DeviceBuffer<T>),
    Uploaded(DeviceBuffer<T>),
}

impl<T> std::ops::Deref for Resident<'_, T> {
    type Target = DeviceBuffer<T>;
    fn deref(&self) -> &DeviceBuffer<T> {
        match self {
            Resident::Borrowed(b) => b,
            Resident::Uploaded(b) => b,
        }
    }
}

impl Gpu {
    /// `input` on the device: a device buffer as it is, host data uploaded as `what`.
    pub(crate) async fn resident<'a, T: Pod>(
        &self,
        what: &str,
        input: Input<'a, T>,
    ) -> Result<Resident<'a, T>> {
        Ok(match input {
            Input::Device(b) => Resident::Borrowed(b),
            Input::Host(data) => Resident::Uploaded(self.upload(what, data).await?),
        })
    }
}

impl<T> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("len", &self.len)
            .field("bytes", &self.buffer.size())
            .finish()
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // Id 0 is never handed out: a buffer detached into a cache gives itself back from there.
        if self.id != 0 {
            self.pool.give_back(self.id, self.buffer.clone());
        }
    }
}

impl<T> DeviceBuffer<T> {
    /// This buffer as a cache inside the pool may hold it: without a strong reference to the
    /// pool (which would keep the pool, and the cache, alive for ever).
    pub(crate) fn detach(mut self) -> Detached {
        let d = Detached::new(self.id, self.buffer.clone(), &self.pool);
        self.id = 0;
        d
    }
}

impl<T: Pod> DeviceBuffer<T> {
    /// Elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: tilekit refuses empty buffers with [`Error::ZeroSize`].
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of data (the allocation may be rounded up to 16 bytes for vec4 access).
    pub fn bytes(&self) -> u64 {
        (self.len * std::mem::size_of::<T>()) as u64
    }

    /// The wgpu buffer, to bind to a caller's own pipelines (usage: STORAGE, COPY_SRC,
    /// COPY_DST).
    pub fn raw(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// For binding to a tilekit kernel.
    pub fn bind(&self) -> Bind<'_> {
        Bind {
            data: Some(self.bytes().div_ceil(4) * 4),
            ..Bind::whole(self.id, &self.buffer)
        }
    }
}

const FILL: Shader = Shader::file("fill", include_str!("../shaders/fill.wgsl"));
const FILL_WG: u32 = 256;

/// The fill shader (poison and iota), for the shader tests.
pub fn fill_shader() -> Shader {
    FILL
}

impl Gpu {
    /// Bytes for `len` elements of `T`, checked against the storage-binding and buffer limits
    /// ([`Limits::check_buffer`](crate::Limits::check_buffer)).
    pub(crate) fn check_buffer<T>(&self, what: &str, len: usize) -> Result<u64> {
        self.limits().check_buffer::<T>(what, len)
    }

    fn usage() -> wgpu::BufferUsages {
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
    }

    /// Round up to 16 bytes so that vec4 views of the buffer stay in bounds (but never past the
    /// binding limit).
    fn padded(&self, bytes: u64) -> u64 {
        bytes.div_ceil(16).saturating_mul(16).min(
            self.limits()
                .max_storage_buffer_binding_size
                .max(bytes.next_multiple_of(4)),
        )
    }

    fn wrap<T>(&self, id: u64, buffer: wgpu::Buffer, len: usize) -> DeviceBuffer<T> {
        DeviceBuffer {
            buffer,
            id,
            len,
            pool: self.pools.inner.clone(),
            _t: PhantomData,
        }
    }

    /// A storage buffer of `len` elements from the pool or new, with unspecified contents.
    pub(crate) async fn alloc_uninit<T: Pod>(
        &self,
        what: &str,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        let bytes = self.padded(self.check_buffer::<T>(what, len)?);
        if let Some((id, b)) = self.pools.inner.take(bytes, Self::usage()) {
            return Ok(self.wrap(id, b, len));
        }
        let buffer = self
            .scoped(&format!("allocating {what}"), || {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(what),
                    size: bytes,
                    usage: Self::usage(),
                    mapped_at_creation: false,
                })
            })
            .await?;
        Ok(self.wrap(next_id(), buffer, len))
    }

    /// A storage buffer of `len` elements for a kernel's output: poisoned with [`POISON`] when
    /// the [`Gpu`] poisons outputs ([`crate::GpuOptions::poison_outputs`]), else with whatever
    /// a pooled buffer last held (every kernel writes all of its output).
    pub fn alloc<'a, T: Pod>(
        &'a self,
        what: &'a str,
        len: usize,
    ) -> crate::Call<'a, DeviceBuffer<T>> {
        crate::Call::new(async move {
            let b = self.alloc_uninit::<T>(what, len).await?;
            if self.poison_outputs {
                self.fill(&b, crate::POISON).await?;
            }
            Ok(b)
        })
    }

    /// A buffer of `len` elements all zero (accumulators).
    pub(crate) fn zeros<'a, T: Pod>(
        &'a self,
        what: &'a str,
        len: usize,
    ) -> crate::Call<'a, DeviceBuffer<T>> {
        crate::Call::new(async move {
            let b = self.alloc_uninit::<T>(what, len).await?;
            self.scoped("clearing a buffer", || {
                let mut enc = self.device.create_command_encoder(&Default::default());
                enc.clear_buffer(&b.buffer, 0, None);
                self.submit_one(enc.finish());
            })
            .await?;
            Ok(b)
        })
    }

    /// Upload a slice into a storage buffer (pooled when one of that size is free). From
    /// [`crate::transfer::CHUNKED_UPLOAD`] bytes it goes in chunks through the staging buffers
    /// the `Gpu` keeps, and returns once the GPU has copied it; smaller uploads are queued
    /// (`queue.write_buffer`) and copied before the next submission runs.
    pub fn upload<'a, T: Pod>(
        &'a self,
        what: &'a str,
        data: &'a [T],
    ) -> crate::Call<'a, DeviceBuffer<T>> {
        crate::Call::new(async move {
            let bytes = self.check_buffer::<T>(what, data.len())?;
            let padded = self.padded(bytes);
            // wgpu copies whole 4-byte words (COPY_BUFFER_ALIGNMENT): an odd count of f16 or u8
            // elements is written with zeros after it.
            let aligned: Vec<u8>;
            let contents: &[u8] = if bytes % wgpu::COPY_BUFFER_ALIGNMENT == 0 {
                bytemuck::cast_slice(data)
            } else {
                let mut v = bytemuck::cast_slice::<T, u8>(data).to_vec();
                v.resize(
                    bytes.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT) as usize,
                    0,
                );
                aligned = v;
                &aligned
            };
            if crate::transfer::upload_in_chunks(contents.len() as u64) {
                // Through the staging ring (crate::transfer), into a pooled buffer or a new one.
                let buf = self.alloc_uninit::<T>(what, data.len()).await?;
                self.write_in_chunks(&format!("uploading {what}"), &buf.buffer, contents)
                    .await?;
                return Ok(buf);
            }
            if let Some((id, b)) = self.pools.inner.take(padded, Self::usage()) {
                self.scoped(&format!("uploading {what}"), || {
                    self.write_buffer(&b, contents);
                })
                .await?;
                return Ok(self.wrap(id, b, data.len()));
            }
            let buffer = self
                .scoped(&format!("uploading {what}"), || {
                    if padded == contents.len() as u64 {
                        self.device
                            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                                label: Some(what),
                                contents,
                                usage: Self::usage(),
                            })
                    } else {
                        let b = self.device.create_buffer(&wgpu::BufferDescriptor {
                            label: Some(what),
                            size: padded,
                            usage: Self::usage(),
                            mapped_at_creation: false,
                        });
                        self.write_buffer(&b, contents);
                        b
                    }
                })
                .await?;
            Ok(self.wrap(next_id(), buffer, data.len()))
        })
    }

    /// Read a buffer back to the host: one copy into a pooled staging buffer, one submission,
    /// one wait (with the GPU timeout).
    pub fn read<'a, T: Pod>(&'a self, buf: &'a DeviceBuffer<T>) -> crate::Call<'a, Vec<T>> {
        crate::Call::new(async move {
            Ok(self
                .execute_and_read_as::<T>(&[], buf.raw(), buf.bytes(), false)
                .await?
                .1)
        })
    }

    /// Set every 4-byte word of `buf` to `word`: 0 clears it (an accumulator), [`POISON`]
    /// poisons it, so that an element a kernel fails to write is caught by the comparison with
    /// the CPU reference.
    pub fn fill<'a, T: Pod>(&'a self, buf: &'a DeviceBuffer<T>, word: u32) -> crate::Call<'a, ()> {
        crate::Call::new(async move {
            if word == 0 {
                return self
                    .scoped("clearing a buffer", || {
                        let mut enc = self.device.create_command_encoder(&Default::default());
                        enc.clear_buffer(&buf.buffer, 0, None);
                        self.submit_one(enc.finish());
                    })
                    .await;
            }
            let words = u32::try_from(buf.buffer.size() / 4).map_err(|_| Error::SizeOverflow {
                what: "filled buffer".into(),
                detail: format!("{} bytes", buf.buffer.size()),
            })?;
            self.fill_words(buf.bind(), words, word, "fill").await?;
            Ok(())
        })
    }

    /// Write `value` (entry `fill`) or `value + i` (entry `iota`) into the first `words` words of
    /// `buffer`, folding the launch into 2-D when it needs more than
    /// `max_compute_workgroups_per_dimension` workgroups. Untimed (nobody reads a fill's time).
    pub(crate) async fn fill_words(
        &self,
        buffer: Bind<'_>,
        words: u32,
        value: u32,
        entry: &str,
    ) -> Result<()> {
        let params = self.uniform(&[words, value, 0, 0]);
        let count = words.div_ceil(FILL_WG) as u64;
        let constants = [("WG".to_string(), FILL_WG as f64)];
        let step = self
            .step(
                &FILL,
                entry,
                &constants,
                &[(0, buffer), (1, params.bind())],
                count,
            )
            .await?;
        self.execute_timed(&[step], false).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gpu_and_buffers_are_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<crate::Gpu>();
        both::<super::DeviceBuffer<f32>>();
    }
}
