//! A kernel of one's own: any WGSL compute entry point run once with one's own buffers, as wgpu's
//! `hello_compute` does, through tilekit's pipeline cache, bind-group cache, timing and GPU
//! timeout. `tilekit exercise check` runs the exercises that have no library kernel this way.

use crate::dispatch::Dispatch;
use crate::launch::{Step, Timing};
use crate::pipeline::Shader;
use crate::pool::{Bind, Uniform};
use crate::{Error, Gpu, Result};

impl Gpu {
    /// Run `entry` of `shader` once over a grid of `workgroups` (x, y, z) and time it: its
    /// override constants set from `constants` (name, value), `buffers` bound to group 0
    /// (binding number, and [`crate::DeviceBuffer::bind`] for a `var<storage>` or
    /// [`Gpu::params`]' `bind` for a `var<uniform>`), each to its data alone, so that
    /// `arrayLength` is the length uploaded. The grid is checked against the adapter's
    /// `max_compute_workgroups_per_dimension` before anything is built; a binding the shader
    /// does not declare, or declares otherwise, is wgpu's error, as [`Error::Gpu`].
    ///
    /// ```
    /// # fn main() -> tilekit::Result<()> {
    /// // y = a·x + y over n elements, n and a in a uniform block (examples/own_kernel.rs).
    /// let gpu = tilekit::Gpu::new().wait()?;
    /// let shader = tilekit::Shader::owned("saxpy", include_str!("../examples/own_kernel.wgsl"));
    /// let x = gpu.upload("x", &[1.0f32, 2.0, 3.0]).wait()?;
    /// let y = gpu.upload("y", &[1.0f32; 3]).wait()?;
    /// let params = gpu.params(&[3u32, 2.0f32.to_bits()])?;
    /// let wg = [("WG".to_string(), 64.0)];
    /// let binds = [(0, x.bind()), (1, y.bind()), (2, params.bind())];
    /// gpu.dispatch(&shader, "saxpy", &wg, &binds, [1, 1, 1]).wait()?;
    /// assert_eq!(gpu.read(&y).wait()?, [3.0, 5.0, 7.0]);
    /// # Ok(()) }
    /// ```
    pub fn dispatch<'a>(
        &'a self,
        shader: &'a Shader,
        entry: &'a str,
        constants: &'a [(String, f64)],
        buffers: &'a [(u32, Bind<'a>)],
        workgroups: [u32; 3],
    ) -> crate::Call<'a, Timing> {
        crate::Call::new(async move {
            let most = self.limits().max_compute_workgroups_per_dimension;
            for (axis, &n) in ["x", "y", "z"].iter().zip(&workgroups) {
                if n == 0 {
                    return Err(Error::zero(format!(
                        "the workgroups of {entry} along {axis}"
                    )));
                }
                if n > most {
                    return Err(Error::OutOfRange {
                        what: format!("the workgroups of {entry} along {axis}"),
                        value: n.to_string(),
                        limit: format!(
                            "the adapter's max_compute_workgroups_per_dimension of {most}"
                        ),
                    });
                }
            }
            let [x, y, z] = workgroups;
            let grid = Dispatch {
                count: x.saturating_mul(y),
                x,
                y,
            };
            // Each buffer bound to its data alone: `arrayLength` is the length uploaded, not
            // the buffer's padding.
            let exact: Vec<(u32, Bind<'_>)> =
                buffers.iter().map(|(i, b)| (*i, b.exact())).collect();
            let pipeline = self.pipeline(shader, entry, constants).await?;
            let step = Step::new(self, &pipeline, &exact, grid).await?.deep(z);
            self.execute(&[step]).await
        })
    }

    /// A uniform block holding `value` (a kernel's parameters, for a `var<uniform>` struct of
    /// [`Gpu::dispatch`]), shared with every call that passes the same bytes. Its size is checked
    /// against the adapter's `max_uniform_buffer_binding_size`.
    pub fn params<T: bytemuck::Pod>(&self, value: &[T]) -> Result<Uniform> {
        let bytes: &[u8] = bytemuck::cast_slice(value);
        let limit = self.device.limits().max_uniform_buffer_binding_size;
        if bytes.is_empty() {
            return Err(Error::zero("a uniform block's size in bytes"));
        }
        if bytes.len() as u64 > limit {
            return Err(Error::BufferTooLarge {
                what: "a uniform block".into(),
                bytes: bytes.len() as u64,
                limit_name: "max_uniform_buffer_binding_size",
                limit,
            });
        }
        Ok(self.pools.inner.uniform(&self.device, bytes))
    }
}
