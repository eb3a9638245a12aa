//! Several arrays carved from one workgroup allocation (Harris, "Using Shared Memory in CUDA C/C++").
//! Shader: `shaders/carve.wgsl`. Tests: `tests/carve.rs`. Example: `examples/10_carved_arrays.rs`.

use super::PlanKernel;
use super::{len_u32, Family, Module, PipelineUse, Run};
use crate::pipeline::Shader;
use crate::plan::{FixedTiling, KernelUse, Planner, Spec};
use crate::{Error, Gpu};

const SHADER: Shader = Shader::file("carve", include_str!("../../../shaders/carve.wgsl"));

/// One workgroup of `n` records: n invocations, a pool of 3·n words.
fn usage(n: u32) -> KernelUse {
    KernelUse {
        invocations: n,
        workgroup_bytes: 12 * n,
        registers: 12,
    }
}

/// The three parts of the result: i32s, f32s and bytes, each reversed.
#[derive(Clone, Debug, PartialEq)]
pub struct Carved {
    /// The i32 part, reversed.
    pub ints: Vec<i32>,
    /// The f32 part, reversed.
    pub floats: Vec<f32>,
    /// The byte part (4 per record), reversed as one byte string.
    pub chars: Vec<u8>,
}

impl Gpu {
    /// Reverse `n` records (an i32, an f32 and four bytes each) through one workgroup pool of
    /// 3·n words carved into an i32, an f32 and a byte part. `chars.len()` must be `4 n`.
    pub fn carved_reverse<'a>(
        &'a self,
        ints: &'a [i32],
        floats: &'a [f32],
        chars: &'a [u8],
    ) -> crate::Call<'a, (Carved, Run)> {
        crate::Call::new(async move {
            let n = len_u32("carved records", ints.len())?;
            if n == 0 {
                return Err(Error::zero("carved records"));
            }
            if floats.len() != ints.len() {
                return Err(Error::mismatch(
                    "float part length",
                    ints.len(),
                    floats.len(),
                ));
            }
            if chars.len() != 4 * ints.len() {
                return Err(Error::mismatch(
                    "char part length (4 per record)",
                    4 * ints.len(),
                    chars.len(),
                ));
            }
            self.planner()
                .check(&format!("carved pool of {n} records"), [n, 1, 1], usage(n))?;
            let words: Vec<u32> = chars
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let bi = self.upload("ints", ints).await?;
            let bf = self.upload("floats", floats).await?;
            let bc = self.upload("chars", &words).await?;
            let oi = self.alloc::<i32>("out ints", ints.len()).await?;
            let of = self.alloc::<f32>("out floats", ints.len()).await?;
            let oc = self.alloc::<u32>("out chars", ints.len()).await?;
            let timing = self
                .launch(
                    &SHADER,
                    "carved_reverse",
                    &[("N".to_string(), n as f64)],
                    &[
                        (0, bi.bind()),
                        (1, bf.bind()),
                        (2, bc.bind()),
                        (3, oi.bind()),
                        (4, of.bind()),
                        (5, oc.bind()),
                    ],
                    1,
                )
                .await?;
            let chars_out: Vec<u8> = self
                .read(&oc)
                .await?
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            let carved = Carved {
                ints: self.read(&oi).await?,
                floats: self.read(&of).await?,
                chars: chars_out,
            };
            let run = Run {
                kernel: "carve",
                variant: "carved".into(),
                elements: n as u64,
                bytes: 2 * 12 * n as u64,
                tile: format!("N={n}: pool of {} bytes", 12 * n),
                plan: None,
                timing,
            };
            Ok((carved, run))
        })
    }
}

/// The carved-arrays family.
pub(crate) struct Carve;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Carve = Carve;

impl Family for Carve {
    fn name(&self) -> &'static str {
        "carve"
    }

    fn about(&self) -> &'static str {
        "several arrays carved from one override-sized workgroup allocation (Harris)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![Module {
            shader: SHADER,
            needs: wgpu::Features::empty(),
        }]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        let m = &self.modules()[0];
        [1u32, 64, 256, 1024]
            .into_iter()
            .filter(|&n| planner.check("carve", [n, 1, 1], usage(n)).is_ok())
            .map(|n| PipelineUse::new(m, "carved_reverse", vec![("N".into(), n as f64)]))
            .collect()
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "carve",
            sizes: &[("N", 256)],
            make: |s, _| {
                // What `run carve` refuses, `plan carve` refuses too.
                let n = super::size_u32("N", s[0])?;
                if n == 0 {
                    return Err(Error::zero("carved records"));
                }
                Ok(Box::new(FixedTiling {
                    kernel: "carve",
                    sizes: vec![("n", s[0])],
                    spec: Spec {
                        label: format!("N={n}"),
                        constants: vec![("N", n)],
                        workgroup_size: [n, 1, 1],
                        usage: usage(n),
                        reuse: 1.0,
                        workgroups: 1,
                        split_k: None,
                        work: None,
                    },
                }))
            },
        }]
    }
}
