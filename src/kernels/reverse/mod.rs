//! Array reverse through workgroup memory (Harris, "Using Shared Memory in CUDA C/C++"): the article's
//! static 64-element case, the dynamically sized one, and a block reverse of any n. Values move
//! as raw bits: 4-byte elements as `u32` words, 8-byte ones as `vec2<u32>`.
//! Shader: `shaders/reverse.wgsl`. Tests: `tests/reverse.rs`. Example: `examples/04_reverse.rs`.

use super::{fitting, len_u32, Family, Module, PipelineUse, PlanKernel, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{workgroup_size_candidates, KernelUse, Planner, Scoring, Spec, Tiling};
use crate::{Error, Gpu, Result};

const SOURCE: &str = include_str!("../../../shaders/reverse.wgsl");
/// The article's fixed array length.
pub const STATIC_N: usize = 64;

crate::family::named_enum! {
    /// The three kernels of the lesson.
    pub enum Variant ("reverse variant") {
        /// `staticReverse`: exactly 64 elements in a fixed `array<u32, 64>`.
        Static => "static",
        /// `dynamicReverse`: one workgroup whose array is sized by an override constant.
        Dynamic => "dynamic",
        /// Any n: each workgroup reverses one block and writes it to the mirrored block.
        Block => "block",
    }
}

/// The module whose block reverse moves `words`-word elements (1: f32/i32/u32, 2: f64).
pub fn module(words: u32) -> Module {
    let (name, ty) = if words == 2 {
        ("reverse<vec2<u32>>", "vec2<u32>")
    } else {
        ("reverse", "u32")
    };
    Module {
        shader: Shader::owned(
            name,
            SOURCE.replace("alias Elem = u32;", &format!("alias Elem = {ty};")),
        ),
        needs: wgpu::Features::empty(),
    }
}

/// The planner's view of the block reverse: a workgroup of WG invocations, one element of
/// workgroup memory each (`s_block`), of `bytes` bytes.
#[derive(Clone, Copy, Debug)]
pub struct ReverseTiling {
    /// Elements.
    pub n: u64,
    /// Bytes per element (4 or 8).
    pub bytes: u32,
}

impl Tiling for ReverseTiling {
    fn kernel(&self) -> &'static str {
        "reverse"
    }
    fn sizes(&self) -> Vec<(&'static str, u64)> {
        vec![("n", self.n)]
    }
    fn candidates(&self) -> Vec<Spec> {
        workgroup_size_candidates(self.n, self.bytes, 8)
    }
    fn scoring(&self) -> Scoring {
        Scoring::Occupancy
    }
}

impl Gpu {
    async fn reverse_in_place<T: bytemuck::Pod>(
        &self,
        data: &[T],
        entry: &str,
        n_const: Option<u32>,
    ) -> Result<(Vec<T>, Run)> {
        let buf = self.upload("reverse data", data).await?;
        let constants: Vec<(String, f64)> = n_const
            .map(|n| ("N".to_string(), n as f64))
            .into_iter()
            .collect();
        let timing = self
            .launch(&module(1).shader, entry, &constants, &[(0, buf.bind())], 1)
            .await?;
        let out = self.read(&buf).await?;
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

    /// `staticReverse` and `dynamicReverse`: one workgroup reverses 4-byte words in place.
    async fn reverse_one_workgroup<T: bytemuck::Pod>(
        &self,
        data: &[T],
        variant: Variant,
    ) -> Result<(Vec<T>, Run)> {
        let size = std::mem::size_of::<T>();
        if size != 4 {
            return Err(Error::InvalidArgument {
                what: format!("a {} reverse of {size}-byte elements", variant.name()),
                why: "one workgroup's array holds 4-byte words (the block reverse takes 8)".into(),
            });
        }
        if variant == Variant::Static {
            if data.len() != STATIC_N {
                return Err(Error::mismatch(
                    "static reverse length (a fixed 64-element array)",
                    STATIC_N,
                    data.len(),
                ));
            }
            return self.reverse_in_place(data, "static_reverse", None).await;
        }
        // Sized by the override constant `N = n`, checked against the adapter's limits first
        // (wgpu does not check override sizes).
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
            .await
    }

    /// Reverse any n on the device into `output`: each workgroup reverses one block in
    /// workgroup memory and writes it, coalesced, to the mirrored block. The block size comes
    /// from the planner. Elements of 4 bytes (f32, i32, u32) or 8 bytes (f64, [u32; 2]) move as
    /// raw bits.
    pub fn reverse_on_device<'a, T: bytemuck::Pod>(
        &'a self,
        input: &'a DeviceBuffer<T>,
        output: &'a DeviceBuffer<T>,
    ) -> crate::Call<'a, Run> {
        crate::Call::new(async move {
            if input.len() != output.len() {
                return Err(Error::mismatch(
                    "reverse output length",
                    input.len(),
                    output.len(),
                ));
            }
            let size = std::mem::size_of::<T>() as u32;
            if size != 4 && size != 8 {
                return Err(Error::InvalidArgument {
                    what: format!("a reverse of {size}-byte elements"),
                    why: "the block reverse moves 4- or 8-byte elements".into(),
                });
            }
            let n = len_u32("reverse input", input.len())?;
            let plan = self.planner().plan(&ReverseTiling {
                n: n as u64,
                bytes: size,
            })?;
            let wg = plan.constant("WG");
            let groups = n.div_ceil(wg);
            let params = self.params2(n, groups);
            let timing = self
                .launch(
                    &module(size / 4).shader,
                    "block_reverse",
                    &[("N".to_string(), wg as f64)],
                    &[(1, input.bind()), (2, output.bind()), (3, params.bind())],
                    groups as u64,
                )
                .await?;
            Ok(Run {
                kernel: "reverse",
                variant: "block".into(),
                elements: n as u64,
                bytes: 2 * input.bytes(),
                tile: format!("N={wg}"),
                plan: Some(plan),
                timing,
            })
        })
    }

    /// Reverse `data` with the lesson's `variant`: [`Variant::Static`], the article's fixed
    /// 64-element array in one workgroup; [`Variant::Dynamic`], one workgroup whose array is sized
    /// by an override constant (`N = n`, checked against the adapter's limits); or
    /// [`Variant::Block`], any n, as [`Gpu::reverse_on_device`]. The one-workgroup variants move
    /// 4-byte words; the block reverse 4- or 8-byte elements.
    pub fn reverse<'a, T: bytemuck::Pod>(
        &'a self,
        data: &'a [T],
        variant: Variant,
    ) -> crate::Call<'a, (Vec<T>, Run)> {
        crate::Call::new(async move {
            if variant != Variant::Block {
                return self.reverse_one_workgroup(data, variant).await;
            }
            let input = self.upload("reverse input", data).await?;
            let output = self.alloc::<T>("reverse output", data.len()).await?;
            let run = self.reverse_on_device(&input, &output).await?;
            Ok((self.read(&output).await?, run))
        })
    }
}

/// The reverse family.
pub(crate) struct Reverse;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Reverse = Reverse;

impl Family for Reverse {
    fn name(&self) -> &'static str {
        "reverse"
    }

    fn about(&self) -> &'static str {
        "array reverse through static and override-sized workgroup arrays (Harris)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![module(1), module(2)]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        let mut out = vec![PipelineUse::new(&module(1), "static_reverse", vec![])];
        for n in [
            1u32,
            64,
            256,
            planner.limits.max_compute_invocations_per_workgroup,
        ] {
            let usage = KernelUse {
                invocations: n,
                workgroup_bytes: 4 * n,
                registers: 8,
            };
            if planner.check("dynamic reverse", [n, 1, 1], usage).is_ok() {
                out.push(PipelineUse::new(
                    &module(1),
                    "dynamic_reverse",
                    vec![("N".into(), n as f64)],
                ));
            }
        }
        for words in [1u32, 2] {
            let tiling = ReverseTiling {
                n: 1 << 20,
                bytes: 4 * words,
            };
            for c in fitting(planner, &tiling) {
                let wg = c[0].1;
                out.push(PipelineUse::new(
                    &module(words),
                    "block_reverse",
                    vec![("N".into(), wg)],
                ));
            }
        }
        out
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "reverse",
            sizes: &[("N", 1 << 24)],
            make: |s, _| Ok(Box::new(ReverseTiling { n: s[0], bytes: 4 })),
        }]
    }
}
