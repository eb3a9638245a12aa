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
    /// `src` converted to `To` in a new device buffer, and the time the conversion took: f32 to
    /// f16 rounds (values beyond ±65,504 have no f16: check host data before uploading it, as
    /// [`Gpu::matmul_f16`] does), f16 to f32 is exact.
    pub fn convert<'a, From: ConvertTo<To>, To>(
        &'a self,
        src: &'a DeviceBuffer<From>,
    ) -> crate::Call<'a, (DeviceBuffer<To>, Timing)> {
        From::convert(self, src)
    }

    /// `src` rounded to f16, in a new device buffer, and the time the conversion took.
    pub(crate) fn to_f16<'a>(
        &'a self,
        src: &'a DeviceBuffer<f32>,
    ) -> crate::Call<'a, (DeviceBuffer<f16>, Timing)> {
        crate::Call::new(async move {
            let (dst, step) = self.to_f16_step(src).await?;
            Ok((dst, self.execute(&[step]).await?))
        })
    }

    /// The step of [`Gpu::to_f16`] and the buffer it writes, to record in front of other work
    /// (one submission for a whole f16-compute call).
    pub(crate) async fn to_f16_step(
        &self,
        src: &DeviceBuffer<f32>,
    ) -> Result<(DeviceBuffer<f16>, Step)> {
        let n = elements(src.len())?;
        let dst = self.alloc::<f16>("f16 copy", src.len()).await?;
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

    /// `src` widened to f32 (exact), in a new device buffer, and the time it took.
    pub(crate) fn to_f32<'a>(
        &'a self,
        src: &'a DeviceBuffer<f16>,
    ) -> crate::Call<'a, (DeviceBuffer<f32>, Timing)> {
        crate::Call::new(async move {
            let n = elements(src.len())?;
            let dst = self.alloc::<f32>("f32 copy", src.len()).await?;
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
        })
    }
}

/// An element type the GPU converts into `To` ([`Gpu::convert`]): f32 into f16, f16 into f32.
pub trait ConvertTo<To>: bytemuck::Pod + sealed::Sealed {
    /// The conversion's call.
    fn convert<'a>(
        gpu: &'a Gpu,
        src: &'a DeviceBuffer<Self>,
    ) -> crate::Call<'a, (DeviceBuffer<To>, Timing)>;
}

impl ConvertTo<f16> for f32 {
    fn convert<'a>(
        gpu: &'a Gpu,
        src: &'a DeviceBuffer<f32>,
    ) -> crate::Call<'a, (DeviceBuffer<f16>, Timing)> {
        gpu.to_f16(src)
    }
}

impl ConvertTo<f32> for f16 {
    fn convert<'a>(
        gpu: &'a Gpu,
        src: &'a DeviceBuffer<f16>,
    ) -> crate::Call<'a, (DeviceBuffer<f32>, Timing)> {
        gpu.to_f32(src)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::f16 {}
}
