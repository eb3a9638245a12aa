//! Wide loads: copy and sum with 32-bit against 128-bit (vec4) loads (The CUDA Handbook
//! §8.1). Shader: `shaders/wide.wgsl`. Tests: `tests/wide.rs`.
//! Example: `examples/08_wide_loads.rs`. The vec4 copy is also `tilekit bench`'s bandwidth ceiling.

use super::PlanKernel;
use super::{len_u32, Family, Module, PipelineUse, Run, Word};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{cdiv, FixedTiling, KernelUse, Planner, Spec};
use crate::pool::Bind;
use crate::{Error, Gpu, Result};

const SHADER: Shader = Shader::file("wide", include_str!("../../../shaders/wide.wgsl"));
const WG: u32 = 256;

crate::family::named_enum! {
    /// Load width.
    pub enum Width ("load width") {
        /// One 32-bit word per load.
        Scalar => "scalar",
        /// One vec4 (128 bits) per load.
        Vec4 => "vec4",
    }
}

/// One workgroup of the wide kernels: 256 invocations and one atomic word.
const USAGE: KernelUse = KernelUse {
    invocations: WG,
    workgroup_bytes: 4,
    registers: 16,
};

impl Gpu {
    /// Launch `<kernel>_<width>` over `src` (bound at 0 as words, at 2 as vec4s) with `out`
    /// bound at `out_at[0]` for the scalar entry and `out_at[1]` for the vec4 one.
    async fn wide(
        &self,
        kernel: &'static str,
        width: Width,
        src: &DeviceBuffer<impl Word>,
        out: Bind<'_>,
        out_at: [u32; 2],
        bytes: u64,
    ) -> Result<Run> {
        let n = len_u32(kernel, src.len())?;
        let (src_at, out_at, per) = match width {
            Width::Scalar => (0, out_at[0], 1),
            Width::Vec4 => (2, out_at[1], 4),
        };
        let groups = self.grid_stride_groups(USAGE, (n as u64).div_ceil(per));
        let params = self.params2(n, groups);
        let timing = self
            .launch(
                &SHADER,
                &format!("{kernel}_{}", width.name()),
                &[("WG".into(), WG as f64)],
                &[(src_at, src.bind()), (out_at, out), (4, params.bind())],
                groups as u64,
            )
            .await?;
        Ok(Run {
            kernel,
            variant: width.name().into(),
            elements: n as u64,
            bytes,
            tile: format!("WG={WG}, {groups} workgroups"),
            plan: None,
            timing,
        })
    }

    /// Copy `src` into `dst` (same length) on the device.
    pub fn copy_on_device<'a, T: Word>(
        &'a self,
        src: &'a DeviceBuffer<T>,
        dst: &'a DeviceBuffer<T>,
        width: Width,
    ) -> crate::Call<'a, Run> {
        crate::Call::new(async move {
            if src.len() != dst.len() {
                return Err(Error::mismatch(
                    "copy destination length",
                    src.len(),
                    dst.len(),
                ));
            }
            self.wide("copy", width, src, dst.bind(), [1, 3], 2 * src.bytes())
                .await
        })
    }

    /// Sum of u32 values (wrapping modulo 2³²) on the device.
    pub fn sum_on_device<'a>(
        &'a self,
        src: &'a DeviceBuffer<u32>,
        width: Width,
    ) -> crate::Call<'a, (u32, Run)> {
        crate::Call::new(async move {
            let total = self.zeros::<u32>("sum total", 1).await?;
            let run = self
                .wide("sum", width, src, total.bind(), [5, 5], src.bytes() + 4)
                .await?;
            Ok((self.read(&total).await?[0], run))
        })
    }
}

/// The wide-loads family.
pub(crate) struct Wide;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Wide = Wide;

impl Family for Wide {
    fn name(&self) -> &'static str {
        "wide"
    }

    fn about(&self) -> &'static str {
        "wide loads: copy and sum with 32-bit against 128-bit vec4 loads (CUDA Handbook 8.1)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![Module {
            shader: SHADER,
            needs: wgpu::Features::empty(),
        }]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        if planner.check("wide", [WG, 1, 1], USAGE).is_err() {
            return vec![];
        }
        let m = &self.modules()[0];
        ["copy", "sum"]
            .iter()
            .flat_map(|k| {
                Width::ALL.map(|w| {
                    PipelineUse::new(
                        m,
                        &format!("{k}_{}", w.name()),
                        vec![("WG".into(), WG as f64)],
                    )
                })
            })
            .collect()
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "copy",
            sizes: &[("N", 1 << 26)],
            make: |s, _| {
                // What `run copy` refuses, `plan copy` refuses too.
                if s[0] == 0 {
                    return Err(Error::zero("copy source length"));
                }
                Ok(Box::new(FixedTiling {
                    kernel: "copy",
                    sizes: vec![("n", s[0])],
                    spec: Spec {
                        label: format!("WG={WG}"),
                        constants: vec![],
                        workgroup_size: [WG, 1, 1],
                        usage: USAGE,
                        reuse: 1.0,
                        workgroups: cdiv(s[0].max(1), WG as u64),
                        split_k: None,
                        work: None,
                    },
                }))
            },
        }]
    }
}
