//! Matrix transpose: naive, tiled through workgroup memory, and tiled with padded rows to avoid
//! bank conflicts (CUDA Handbook 8.1, `shared/seeds/004_*.txt`).
//! Shader: `shaders/transpose.wgsl`. Tests: `tests/transpose.rs`. Example: `examples/06_bank_conflicts.rs`.

use super::{grid_len, len_u32, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::Kernel;
use crate::{Gpu, Result};

const SHADER: Shader = Shader::file("transpose", include_str!("../../shaders/transpose.wgsl"));

crate::kernels::named_enum! {
    /// Transpose kernels.
    pub enum Variant ("transpose variant") {
        /// Coalesced reads, strided writes.
        Naive => "naive",
        /// Through a TILE×TILE workgroup tile: both sides coalesced, the tile read down columns.
        Tiled => "tiled",
        /// The same with (TILE+1)-word rows: a column touches every bank once.
        Padded => "padded",
    }
}

impl Gpu {
    /// Transpose a rows×cols row-major matrix on the device into `output` (cols×rows).
    pub fn transpose_on_device(
        &self,
        input: &DeviceBuffer<f32>,
        output: &DeviceBuffer<f32>,
        (rows, cols): (usize, usize),
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<Run> {
        let elems = grid_len(
            "transpose",
            (rows, cols),
            &[("input", input.len()), ("output", output.len())],
        )?;
        let (m, n) = (len_u32("rows", rows)?, len_u32("cols", cols)?);
        let kernel = Kernel::Transpose { m, n };
        let plan = match tile {
            Some(t) => self.planner().plan_forced(kernel, t)?,
            None => self.planner().plan(kernel)?,
        };
        let t = plan.constant("TILE");
        let tiles_x = n.div_ceil(t);
        let params = self.uniform(&[m, n, tiles_x, 0u32]);
        let timing = self.launch(
            &SHADER,
            variant.name(),
            &plan.constants(),
            &[(0, input.raw()), (1, output.raw()), (2, &params)],
            tiles_x as u64 * m.div_ceil(t) as u64,
        )?;
        Ok(Run {
            kernel: "transpose",
            variant: variant.name().into(),
            elements: elems as u64,
            bytes: 2 * input.bytes(),
            tile: plan.choice().label.clone(),
            plan: Some(plan),
            timing,
        })
    }

    /// Transpose a rows×cols row-major matrix into cols×rows.
    pub fn transpose(
        &self,
        data: &[f32],
        rows: usize,
        cols: usize,
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<(Vec<f32>, Run)> {
        let elems = grid_len("transpose", (rows, cols), &[("input", data.len())])?;
        let input = self.upload("transpose input", data)?;
        let output = self.alloc::<f32>("transpose output", elems)?;
        let run = self.transpose_on_device(&input, &output, (rows, cols), variant, tile)?;
        Ok((self.read(&output)?, run))
    }
}
