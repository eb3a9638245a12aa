//! Device buffers: upload a slice, read a buffer back, poison an output before a run.

use crate::gpu::Gpu;
use crate::pipeline::Shader;
use crate::{Error, Result};
use bytemuck::Pod;
use std::marker::PhantomData;
use wgpu::util::DeviceExt;

/// The poison written into outputs before a run: a quiet NaN as f32 and, as an integer,
/// 2,145,299,902, which no test input produces.
pub const POISON: u32 = 0x7FDE_ADBE;

/// A storage buffer of `len` elements of `T` on the device. Kernels take and return these, so
/// work chains without a readback.
#[derive(Debug)]
pub struct DeviceBuffer<T> {
    pub(crate) buffer: wgpu::Buffer,
    len: usize,
    _t: PhantomData<T>,
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

    /// The wgpu buffer.
    pub fn raw(&self) -> &wgpu::Buffer {
        &self.buffer
    }
}

const FILL: Shader = Shader::file("fill", include_str!("../shaders/fill.wgsl"));
const FILL_WG: u32 = 256;

impl Gpu {
    /// Bytes for `len` elements of `T`, checked against the storage-binding and buffer limits.
    pub fn check_buffer<T>(&self, what: &str, len: usize) -> Result<u64> {
        if len == 0 {
            return Err(Error::zero(format!("{what} length")));
        }
        let bytes = (len as u64)
            .checked_mul(std::mem::size_of::<T>() as u64)
            .ok_or_else(|| Error::SizeOverflow {
                what: what.to_string(),
                detail: format!("{len} elements"),
            })?;
        let l = &self.limits();
        if bytes > l.storage_binding {
            return Err(Error::BufferTooLarge {
                what: what.to_string(),
                bytes,
                limit_name: "max_storage_buffer_binding_size",
                limit: l.storage_binding,
            });
        }
        if bytes > l.buffer_size {
            return Err(Error::BufferTooLarge {
                what: what.to_string(),
                bytes,
                limit_name: "max_buffer_size",
                limit: l.buffer_size,
            });
        }
        Ok(bytes)
    }

    fn usage() -> wgpu::BufferUsages {
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
    }

    /// Round up to 16 bytes so that vec4 views of the buffer stay in bounds.
    fn padded(bytes: u64) -> u64 {
        bytes.div_ceil(16) * 16
    }

    /// A new storage buffer of `len` elements, poisoned with [`POISON`].
    pub fn alloc<T: Pod>(&self, what: &str, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = self.check_buffer::<T>(what, len)?;
        let buffer = self.scoped(&format!("allocating {what}"), || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(what),
                size: Self::padded(bytes).min(self.limits().storage_binding.max(bytes)),
                usage: Self::usage(),
                mapped_at_creation: false,
            })
        })?;
        let b = DeviceBuffer {
            buffer,
            len,
            _t: PhantomData,
        };
        self.poison(&b)?;
        Ok(b)
    }

    /// Upload a slice into a new storage buffer.
    pub fn upload<T: Pod>(&self, what: &str, data: &[T]) -> Result<DeviceBuffer<T>> {
        let bytes = self.check_buffer::<T>(what, data.len())?;
        let padded = Self::padded(bytes).min(self.limits().storage_binding.max(bytes));
        let buffer = self.scoped(&format!("uploading {what}"), || {
            if padded == bytes {
                self.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some(what),
                        contents: bytemuck::cast_slice(data),
                        usage: Self::usage(),
                    })
            } else {
                let b = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(what),
                    size: padded,
                    usage: Self::usage(),
                    mapped_at_creation: false,
                });
                self.queue.write_buffer(&b, 0, bytemuck::cast_slice(data));
                b
            }
        })?;
        Ok(DeviceBuffer {
            buffer,
            len: data.len(),
            _t: PhantomData,
        })
    }

    /// A small uniform buffer holding `value` (kernel parameters).
    pub fn uniform<T: Pod>(&self, value: &T) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: bytemuck::bytes_of(value),
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// Read a buffer back to the host (map_async on a staging copy, waited on with
    /// futures-intrusive's oneshot channel).
    pub fn read<T: Pod>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        let bytes = buf.bytes();
        let copy = bytes.div_ceil(4) * 4;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: copy,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(&buf.buffer, 0, &staging, 0, copy);
        self.queue.submit([enc.finish()]);
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        staging.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        let mapped = pollster::block_on(rx.receive());
        match mapped {
            Some(Ok(())) => {}
            other => {
                return Err(Error::Gpu {
                    context: "reading a buffer back".into(),
                    message: format!("{other:?}"),
                })
            }
        }
        let view = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| Error::Gpu {
                context: "reading a buffer back".into(),
                message: e.to_string(),
            })?;
        let out = bytemuck::pod_collect_to_vec::<u8, T>(&view[..bytes as usize]);
        drop(view);
        staging.unmap();
        Ok(out)
    }

    /// Overwrite every word of `buf` with [`POISON`], so that an element a kernel fails to write
    /// is caught by the comparison with the CPU reference.
    pub fn poison<T: Pod>(&self, buf: &DeviceBuffer<T>) -> Result<()> {
        let words = u32::try_from(buf.buffer.size() / 4).map_err(|_| Error::SizeOverflow {
            what: "poisoned buffer".into(),
            detail: format!("{} bytes", buf.buffer.size()),
        })?;
        self.fill_words(&buf.buffer, words, POISON, "fill")?;
        Ok(())
    }

    /// Write `value` (entry `fill`) or `value + i` (entry `iota`) into the first `words` words of
    /// `buffer`, folding the launch into 2-D when it needs more than
    /// `max_compute_workgroups_per_dimension` workgroups.
    pub fn fill_words(
        &self,
        buffer: &wgpu::Buffer,
        words: u32,
        value: u32,
        entry: &str,
    ) -> Result<crate::launch::Timing> {
        let params = self.uniform(&[words, value, 0, 0]);
        let count = words.div_ceil(FILL_WG) as u64;
        let constants = [("WG".to_string(), FILL_WG as f64)];
        self.launch(
            &FILL,
            entry,
            &constants,
            &[(0, buffer), (1, &params)],
            count,
        )
    }
}
