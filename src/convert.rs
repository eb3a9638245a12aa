//! f32 ↔ f16 on the GPU (`shaders/convert.wgsl`): what lets a caller with f32 data ask for f16
//! compute ([`Gpu::matmul_f16`]) without converting on the host.

use crate::buffer::DeviceBuffer;
use crate::launch::{Step, Timing};
use crate::pipeline::Shader;
use crate::{Error, Gpu, Result};
use half::f16;

const CONVERT: Shader = Shader::file("convert", include_str!("../shaders/convert.wgsl"));
const CONVERT_WG: u64 = 256;

/// The conversion shader, for the shader tests.
pub fn convert_shader() -> Shader {
    CONVERT
}

fn elements(len: usize) -> Result<u32> {
    u32::try_from(len).map_err(|_| Error::SizeOverflow {
        what: "converted buffer".into(),
        detail: format!("{len} elements do not fit a 32-bit count"),
    })
}

impl Gpu {
    /// Blocking [`Gpu::to_f16_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_f16(&self, src: &DeviceBuffer<f32>) -> Result<(DeviceBuffer<f16>, Timing)> {
        crate::gpu::block_on(self.to_f16_async(src))
    }

    /// `src` rounded to f16, in a new device buffer, and the time the conversion took. Values
    /// beyond ±65,504 have no f16: check host data before uploading it (as
    /// [`Gpu::matmul_f16`] does).
    pub async fn to_f16_async(
        &self,
        src: &DeviceBuffer<f32>,
    ) -> Result<(DeviceBuffer<f16>, Timing)> {
        let (dst, step) = self.to_f16_step(src).await?;
        Ok((dst, self.execute(&[step]).await?))
    }

    /// The step of [`Gpu::to_f16`] and the buffer it writes, to record in front of other work
    /// (one submission for a whole f16-compute call).
    pub(crate) async fn to_f16_step(
        &self,
        src: &DeviceBuffer<f32>,
    ) -> Result<(DeviceBuffer<f16>, Step)> {
        let n = elements(src.len())?;
        let dst = self.alloc_async::<f16>("f16 copy", src.len()).await?;
        let params = self.uniform(&[n, 0, 0, 0]);
        let step = self
            .step(
                &CONVERT,
                "to_f16",
                &[],
                &[(0, src.bind()), (1, dst.bind()), (2, params.bind())],
                (n as u64).div_ceil(2).div_ceil(CONVERT_WG),
            )
            .await?;
        Ok((dst, step))
    }

    /// Blocking [`Gpu::to_f32_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn to_f32(&self, src: &DeviceBuffer<f16>) -> Result<(DeviceBuffer<f32>, Timing)> {
        crate::gpu::block_on(self.to_f32_async(src))
    }

    /// `src` widened to f32 (exact), in a new device buffer, and the time it took.
    pub async fn to_f32_async(
        &self,
        src: &DeviceBuffer<f16>,
    ) -> Result<(DeviceBuffer<f32>, Timing)> {
        let n = elements(src.len())?;
        let dst = self.alloc_async::<f32>("f32 copy", src.len()).await?;
        let params = self.uniform(&[n, 0, 0, 0]);
        let t = self
            .launch(
                &CONVERT,
                "to_f32",
                &[],
                &[(3, src.bind()), (4, dst.bind()), (2, params.bind())],
                (n as u64).div_ceil(2).div_ceil(CONVERT_WG),
            )
            .await?;
        Ok((dst, t))
    }
}
