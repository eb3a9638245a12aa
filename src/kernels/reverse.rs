//! Array reverse through workgroup memory (Harris, `shared/seeds/003_*.txt`): the article's
//! static 64-element case, the dynamically sized one, and a block reverse of any n.
//! Shader: `shaders/reverse.wgsl`. Tests: `tests/reverse.rs`. Example: `examples/04_reverse.rs`.

use super::{len_u32, Run, Word};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{Kernel, KernelUse};
use crate::{Error, Gpu, Result};

const SHADER: Shader = Shader::file("reverse", include_str!("../../shaders/reverse.wgsl"));
/// The article's fixed array length.
pub const STATIC_N: usize = 64;

impl Gpu {
    fn reverse_in_place<T: Word>(
        &self,
        data: &[T],
        entry: &str,
        n_const: Option<u32>,
    ) -> Result<(Vec<T>, Run)> {
        let buf = self.upload("reverse data", data)?;
        let constants: Vec<(String, f64)> = n_const
            .map(|n| ("N".to_string(), n as f64))
            .into_iter()
            .collect();
        let timing = self.launch(&SHADER, entry, &constants, &[(0, buf.raw())], 1)?;
        let out = self.read(&buf)?;
        let run = Run {
            kernel: "reverse",
            variant: entry.trim_end_matches("_reverse").to_string(),
            elements: data.len() as u64,
            bytes: 2 * buf.bytes(),
            tile: format!("{} invocations", data.len()),
            plan: None,
            timing,
        };
        Ok((out, run))
    }

    /// `staticReverse`: exactly 64 elements, one workgroup with a fixed `array<u32, 64>`.
    pub fn reverse_static<T: Word>(&self, data: &[T]) -> Result<(Vec<T>, Run)> {
        if data.len() != STATIC_N {
            return Err(Error::mismatch(
                "static reverse length (a fixed 64-element array)",
                STATIC_N,
                data.len(),
            ));
        }
        self.reverse_in_place(data, "static_reverse", None)
    }

    /// `dynamicReverse`: one workgroup whose array is sized by the override constant `N = n`,
    /// checked against the adapter's limits first (wgpu does not check override sizes).
    pub fn reverse_dynamic<T: Word>(&self, data: &[T]) -> Result<(Vec<T>, Run)> {
        let n = len_u32("dynamic reverse", data.len())?;
        if n == 0 {
            return Err(Error::zero("dynamic reverse length"));
        }
        let usage = KernelUse {
            invocations: n,
            workgroup_bytes: 4 * n,
            registers: 8,
        };
        self.planner()
            .check(&format!("dynamic reverse of {n}"), [n, 1, 1], usage)?;
        self.reverse_in_place(data, "dynamic_reverse", Some(n))
    }

    /// Reverse any n on the device into `output`: each workgroup reverses one block in
    /// workgroup memory and writes it, coalesced, to the mirrored block. The block size comes
    /// from the planner.
    pub fn reverse_on_device<T: Word>(
        &self,
        input: &DeviceBuffer<T>,
        output: &DeviceBuffer<T>,
    ) -> Result<Run> {
        if input.len() != output.len() {
            return Err(Error::mismatch(
                "reverse output length",
                input.len(),
                output.len(),
            ));
        }
        let n = len_u32("reverse input", input.len())?;
        let plan = self.planner().plan(Kernel::Reverse { n: n as u64 })?;
        let wg = plan.constant("WG");
        let groups = n.div_ceil(wg);
        let params = self.params2(n, groups);
        let timing = self.launch(
            &SHADER,
            "block_reverse",
            &[("N".to_string(), wg as f64)],
            &[(1, input.raw()), (2, output.raw()), (3, &params)],
            groups as u64,
        )?;
        Ok(Run {
            kernel: "reverse",
            variant: "block".into(),
            elements: n as u64,
            bytes: 2 * input.bytes(),
            tile: format!("N={wg}"),
            plan: Some(plan),
            timing,
        })
    }

    /// Reverse any n (see [`Gpu::reverse_on_device`]).
    pub fn reverse<T: Word>(&self, data: &[T]) -> Result<(Vec<T>, Run)> {
        let input = self.upload("reverse input", data)?;
        let output = self.alloc::<T>("reverse output", data.len())?;
        let run = self.reverse_on_device(&input, &output)?;
        Ok((self.read(&output)?, run))
    }
}
