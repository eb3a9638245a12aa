//! Wide loads: copy and sum with 32-bit against 128-bit (vec4) loads (CUDA Handbook 8.1,
//! `shared/seeds/004_*.txt`). Shader: `shaders/wide.wgsl`. Tests: `tests/wide.rs`.
//! Example: `examples/08_wide_loads.rs`. The vec4 copy is also `tilekit bench`'s bandwidth ceiling.

use super::{len_u32, Run, Word};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::{Error, Gpu, Result};

const SHADER: Shader = Shader::file("wide", include_str!("../../shaders/wide.wgsl"));
const WG: u32 = 256;

crate::kernels::named_enum! {
    /// Load width.
    pub enum Width ("load width") {
        /// One 32-bit word per load.
        Scalar => "scalar",
        /// One vec4 (128 bits) per load.
        Vec4 => "vec4",
    }
}

impl Gpu {
    /// Copy `src` into `dst` (same length) on the device.
    pub fn copy_on_device<T: Word>(
        &self,
        src: &DeviceBuffer<T>,
        dst: &DeviceBuffer<T>,
        width: Width,
    ) -> Result<Run> {
        if src.len() != dst.len() {
            return Err(Error::mismatch(
                "copy destination length",
                src.len(),
                dst.len(),
            ));
        }
        let n = len_u32("copy", src.len())?;
        let per = if width == Width::Vec4 { 4 } else { 1 };
        let groups = self.grid_stride_groups(WG, (n as u64).div_ceil(per));
        let params = self.params2(n, groups);
        let (entry, bindings) = match width {
            Width::Scalar => (
                "copy_scalar",
                [(0, src.raw()), (1, dst.raw()), (4, &params)],
            ),
            Width::Vec4 => ("copy_vec4", [(2, src.raw()), (3, dst.raw()), (4, &params)]),
        };
        let timing = self.launch(
            &SHADER,
            entry,
            &[("WG".into(), WG as f64)],
            &bindings,
            groups as u64,
        )?;
        Ok(Run {
            kernel: "copy",
            variant: width.name().into(),
            elements: n as u64,
            bytes: 2 * src.bytes(),
            tile: format!("WG={WG}, {groups} workgroups"),
            plan: None,
            timing,
        })
    }

    /// Copy a slice through the device.
    pub fn copy_words<T: Word>(&self, data: &[T], width: Width) -> Result<(Vec<T>, Run)> {
        let src = self.upload("copy source", data)?;
        let dst = self.alloc::<T>("copy destination", data.len())?;
        let run = self.copy_on_device(&src, &dst, width)?;
        Ok((self.read(&dst)?, run))
    }

    /// Sum of u32 values (wrapping modulo 2³²) on the device.
    pub fn sum_on_device(&self, src: &DeviceBuffer<u32>, width: Width) -> Result<(u32, Run)> {
        let n = len_u32("sum", src.len())?;
        let per = if width == Width::Vec4 { 4 } else { 1 };
        let groups = self.grid_stride_groups(WG, (n as u64).div_ceil(per));
        let params = self.params2(n, groups);
        let total = self.upload("sum total", &[0u32])?;
        let (entry, bindings) = match width {
            Width::Scalar => (
                "sum_scalar",
                [(0, src.raw()), (4, &params), (5, total.raw())],
            ),
            Width::Vec4 => ("sum_vec4", [(2, src.raw()), (4, &params), (5, total.raw())]),
        };
        let timing = self.launch(
            &SHADER,
            entry,
            &[("WG".into(), WG as f64)],
            &bindings,
            groups as u64,
        )?;
        let run = Run {
            kernel: "sum",
            variant: width.name().into(),
            elements: n as u64,
            bytes: src.bytes() + 4,
            tile: format!("WG={WG}, {groups} workgroups"),
            plan: None,
            timing,
        };
        Ok((self.read(&total)?[0], run))
    }

    /// Sum a slice of u32 values (wrapping).
    pub fn sum_words(&self, data: &[u32], width: Width) -> Result<(u32, Run)> {
        let src = self.upload("sum input", data)?;
        self.sum_on_device(&src, width)
    }
}
