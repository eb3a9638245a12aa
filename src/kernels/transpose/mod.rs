//! Matrix transpose: naive, tiled through workgroup memory, and tiled with padded rows to avoid
//! bank conflicts (The CUDA Handbook §8.1). Elements move as raw bits:
//! 4-byte ones as `u32`, 8-byte ones as `vec2<u32>`.
//! Shader: `shaders/transpose.wgsl`. Tests: `tests/transpose.rs`. Example: `examples/06_bank_conflicts.rs`.

use super::{fitting, grid_len, len_u32, size_u32, Family, Module, PipelineUse, PlanKernel, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{cdiv, KernelUse, Planner, Spec, Tiling};
use crate::{Error, Gpu};

const SOURCE: &str = include_str!("../../../shaders/transpose.wgsl");

crate::family::named_enum! {
    /// Transpose kernels.
    pub enum Variant ("transpose variant") {
        /// Coalesced reads, strided writes.
        Naive => "naive",
        /// Through a TILE×TILE workgroup tile: both sides coalesced, the tile read down columns.
        Tiled => "tiled",
        /// The same with (TILE+1)-element rows: a column touches every bank once.
        Padded => "padded",
    }
}

/// The module moving `words`-word elements (1: f32/i32/u32, 2: f64).
pub fn module(words: u32) -> Module {
    let (name, ty) = if words == 2 {
        ("transpose<vec2<u32>>", "vec2<u32>")
    } else {
        ("transpose", "u32")
    };
    Module {
        shader: Shader::owned(
            name,
            SOURCE.replace("alias Elem = u32;", &format!("alias Elem = {ty};")),
        ),
        needs: wgpu::Features::empty(),
    }
}

/// The planner's view of the transpose: TILE ∈ {8, 16, 32} with TILE×min(TILE, 8) invocations.
#[derive(Clone, Copy, Debug)]
pub struct TransposeTiling {
    /// Rows.
    pub m: u32,
    /// Columns.
    pub n: u32,
    /// Bytes per element (4 or 8).
    pub bytes: u32,
}

impl Tiling for TransposeTiling {
    fn kernel(&self) -> &'static str {
        "transpose"
    }
    fn sizes(&self) -> Vec<(&'static str, u64)> {
        vec![("m", self.m as u64), ("n", self.n as u64)]
    }
    fn candidates(&self) -> Vec<Spec> {
        [8u32, 16, 32]
            .into_iter()
            .map(|t| {
                let rows = t.min(8);
                Spec {
                    label: format!("TILE={t}, ROWS={rows}"),
                    constants: vec![("TILE", t), ("ROWS", rows)],
                    workgroup_size: [t, rows, 1],
                    // One tile, each row padded by an element (Handbook 8.1: 33 words):
                    // `tile_padded` in the shader.
                    usage: KernelUse {
                        invocations: t * rows,
                        workgroup_bytes: t * (t + 1) * self.bytes,
                        registers: 16,
                    },
                    // Coalesced run length on both sides, capped at a 32-word transaction.
                    reuse: t.min(32) as f64,
                    workgroups: cdiv(self.m as u64, t as u64) * cdiv(self.n as u64, t as u64),
                    split_k: None,
                    work: None,
                }
            })
            .collect()
    }
}

impl Gpu {
    /// Transpose a rows×cols row-major matrix on the device into `output` (cols×rows).
    /// Elements of 4 bytes (f32, i32, u32) or 8 bytes (f64) move as raw bits.
    pub fn transpose_on_device<'a, T: bytemuck::Pod>(
        &'a self,
        input: &'a DeviceBuffer<T>,
        output: &'a DeviceBuffer<T>,
        (rows, cols): (usize, usize),
        variant: Variant,
        tile: Option<u32>,
    ) -> crate::Call<'a, Run> {
        crate::Call::new(async move {
            let elems = grid_len(
                "transpose",
                (rows, cols),
                &[("input", input.len()), ("output", output.len())],
            )?;
            let size = std::mem::size_of::<T>() as u32;
            if size != 4 && size != 8 {
                return Err(Error::InvalidArgument {
                    what: format!("a transpose of {size}-byte elements"),
                    why: "the transpose moves 4- or 8-byte elements".into(),
                });
            }
            let (m, n) = (len_u32("rows", rows)?, len_u32("cols", cols)?);
            let kernel = TransposeTiling { m, n, bytes: size };
            let forced = tile.map(|t| crate::plan::Tile::of([("TILE", t)]));
            let plan = self.planner().plan_or_forced(&kernel, forced.as_ref())?;
            let t = plan.constant("TILE");
            let tiles_x = n.div_ceil(t);
            let params = self.uniform(&[m, n, tiles_x, 0u32]);
            let timing = self
                .launch(
                    &module(size / 4).shader,
                    variant.name(),
                    &plan.constants(),
                    &[(0, input.bind()), (1, output.bind()), (2, params.bind())],
                    tiles_x as u64 * m.div_ceil(t) as u64,
                )
                .await?;
            Ok(Run {
                kernel: "transpose",
                variant: variant.name().into(),
                elements: elems as u64,
                bytes: 2 * input.bytes(),
                tile: plan.choice().label.clone(),
                plan: Some(plan),
                timing,
            })
        })
    }

    /// Transpose a rows×cols row-major matrix into cols×rows.
    pub fn transpose<'a, T: bytemuck::Pod>(
        &'a self,
        data: &'a [T],
        rows: usize,
        cols: usize,
        variant: Variant,
        tile: Option<u32>,
    ) -> crate::Call<'a, (Vec<T>, Run)> {
        crate::Call::new(async move {
            let elems = grid_len("transpose", (rows, cols), &[("input", data.len())])?;
            let input = self.upload("transpose input", data).await?;
            let output = self.alloc::<T>("transpose output", elems).await?;
            let run = self
                .transpose_on_device(&input, &output, (rows, cols), variant, tile)
                .await?;
            Ok((self.read(&output).await?, run))
        })
    }
}

/// The transpose family.
pub(crate) struct Transpose;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Transpose = Transpose;

impl Family for Transpose {
    fn name(&self) -> &'static str {
        "transpose"
    }

    fn about(&self) -> &'static str {
        "transpose through a workgroup tile, and bank conflicts avoided by padding (CUDA Handbook 8.1)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![module(1), module(2)]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        let mut out = Vec::new();
        for words in [1u32, 2] {
            let t = TransposeTiling {
                m: 1024,
                n: 1024,
                bytes: 4 * words,
            };
            for c in fitting(planner, &t) {
                for v in Variant::ALL {
                    out.push(PipelineUse::new(&module(words), v.name(), c.clone()));
                }
            }
        }
        out
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "transpose",
            sizes: &[("M", 4096), ("N", 4096)],
            make: |s, _| {
                Ok(Box::new(TransposeTiling {
                    m: size_u32("M", s[0])?,
                    n: size_u32("N", s[1])?,
                    bytes: 4,
                }))
            },
        }]
    }
}
