//! `gemv`: the small-M kernel (M = 1 to 16): a bandwidth kernel that reads B once for each
//! block of up to eight rows of A with 128-bit loads, several in flight per invocation, adds
//! partial sums along K through workgroup memory, and splits K across workgroups so that even a
//! matrix-vector product fills the GPU. A ragged K or N is read where it lies, each vec4 of the
//! ragged operand (A for K, B for N) from four scalar loads: B is read once, so copying it into
//! rows of 4 first would cost more than the product (the rule of every fast kernel,
//! [`super::loads_in_place`], which every shape with up to 16 rows meets). Shader:
//! `shaders/matmul_gemv.wgsl` after `shaders/matmul_support.wgsl`, then the loads of A
//! (`shaders/matmul_gemv_a_wide.wgsl` or `_a_ragged.wgsl`) and of B (`_b_wide.wgsl` or
//! `_b_ragged.wgsl`).

use super::frame::Frame;
use super::in_place::InPlace;
use super::source::{Built, Form, Forms, Source};
use super::splits;
use super::support::{self, round4};
use super::{Caps, Kernel, Launch, Operands, Precision, Shape};
use crate::kernels::{fitting, Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{cdiv, KernelUse, Plan, Planner, Scoring, Spec, SplitK, Tiling};
use crate::{Gpu, Result};

/// The most rows of A per invocation (the accumulators the shader names).
pub const MB: u32 = 8;

/// Rows of A per invocation for `m` rows (`MR` in the shader): all of them up to [`MB`], rounded
/// up to a power of two so that few pipelines serve every M (a 3-row A runs the 4-row one, its
/// fourth row masked).
pub fn rows_per_invocation(m: u32) -> u32 {
    m.clamp(1, MB).next_power_of_two()
}

/// The kernel's shader in parts: `matmul_gemv.wgsl` and the loads of A and of B (128 bits wide, or
/// a ragged operand read in place in scalars); it stores C or its partials itself.
static SOURCE: Source = Source {
    name: "matmul_gemv",
    main: include_str!("../../../shaders/matmul_gemv.wgsl"),
    a: Forms {
        wide: include_str!("../../../shaders/matmul_gemv_a_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_gemv_a_ragged.wgsl"),
    },
    b: Forms {
        wide: include_str!("../../../shaders/matmul_gemv_b_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_gemv_b_ragged.wgsl"),
    },
    c: None,
    coop: false,
    built: Built::new(),
};

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    k: u32,
    n: u32,
    col_groups: u32,
    row_blocks: u32,
    k_split: u32,
    splits: u32,
    _pad: u32,
}

/// Registers per invocation: what NVIDIA's driver allocated for each pipeline on the H100
/// (`scripts/device/stats`), rounded up where tiles differ. The count decides how many workgroups
/// a multiprocessor holds, and with it the split of K: an estimate from the accumulators alone
/// came out below what the driver allocates, held one workgroup too many per multiprocessor, and
/// every split sized for one wave ran two (BENCHMARKS.md, "The small-M kernel").
fn registers(precision: Precision, mr: u32, ks: u32) -> u32 {
    match (precision, mr) {
        // Up to two rows: 28 to 34 (34 for f32 at KS = 8).
        (Precision::F32, 1) if ks == 8 => 34,
        (_, 1 | 2) => 32,
        // Four rows: 48 to 54 in f32, 39 or 40 in f16.
        (Precision::F32, 4) => 54,
        (Precision::F16, 4) => 40,
        // Eight rows: 72 in f32 (79 or 80 at KS = 8), 64 in f16.
        (Precision::F32, _) if ks == 8 => 80,
        (Precision::F32, _) => 72,
        (Precision::F16, _) => 64,
    }
}

/// The planner's view of the small-M kernel: WX invocations along N (4 columns each) by WK
/// along K, each walking slices of KS rows of B.
#[derive(Clone, Copy, Debug)]
pub struct GemvTiling {
    /// The problem.
    pub shape: Shape,
    /// The operands' type (the registers differ: f16 operands are widened as they are read).
    pub precision: Precision,
}

impl Tiling for GemvTiling {
    fn kernel(&self) -> &'static str {
        "gemv-matmul"
    }

    fn sizes(&self) -> Vec<(&'static str, u64)> {
        let s = self.shape;
        vec![("m", s.m as u64), ("k", s.k as u64), ("n", s.n as u64)]
    }

    fn scoring(&self) -> Scoring {
        Scoring::Occupancy
    }

    fn candidates(&self) -> Vec<Spec> {
        let mr = rows_per_invocation(self.shape.m);
        // KS = 8 puts eight 128-bit loads of B in flight per invocation instead of four: a
        // candidate for the tuner in f32, where it ran close to KS = 4 (in f16 it ran behind;
        // BENCHMARKS.md, "The small-M kernel"). Listed first,
        // so that where the occupancy score ties the two (the same workgroups per
        // multiprocessor) KS = 4 stands: the planner keeps the last of equal scores.
        let wide: &[(u32, u32, u32)] = match self.precision {
            Precision::F32 => &[(64, 4, 8), (32, 8, 8), (32, 4, 8)],
            Precision::F16 => &[],
        };
        wide.iter()
            .chain(&[
                (64u32, 4u32, 4u32),
                (32, 8, 4),
                (64, 2, 4),
                (32, 4, 4),
                (16, 4, 4),
            ])
            .copied()
            .map(|(wx, wk, ks)| Spec {
                label: format!("WX={wx},WK={wk},KS={ks}"),
                constants: vec![("WX", wx), ("WK", wk), ("KS", ks), ("MR", mr)],
                workgroup_size: [wx, wk, 1],
                usage: KernelUse {
                    invocations: wx * wk,
                    // `partial`: one vec4 per invocation.
                    workgroup_bytes: wx * wk * 16,
                    registers: registers(self.precision, mr, ks),
                },
                reuse: 1.0,
                workgroups: cdiv(round4(self.shape.n) as u64 / 4, wx as u64)
                    * cdiv(self.shape.m as u64, mr as u64),
                // Split K so that the few column groups of a wide B fill the GPU; each split at
                // least 256 deep.
                split_k: Some(SplitK {
                    k: round4(self.shape.k),
                    min_k: 256,
                    // 128-bit loads along K.
                    granule: 4,
                    partial_bytes: self.shape.m as u64 * round4(self.shape.n) as u64 * 4,
                    last_wave: None,
                    shares: None,
                }),
                work: None,
            })
            .collect()
    }
}

/// The small-M variant, for f32 or f16 operands (f32 arithmetic).
pub struct Gemv(pub Precision);

/// f32 operands.
pub static GEMV: Gemv = Gemv(Precision::F32);
/// f16 operands: half the bytes of B to read, the bound of this kernel.
pub static GEMV_F16: Gemv = Gemv(Precision::F16);

impl Kernel for Gemv {
    fn name(&self) -> &'static str {
        match self.0 {
            Precision::F32 => "gemv",
            Precision::F16 => "gemv-f16",
        }
    }

    fn about(&self) -> &'static str {
        match self.0 {
            Precision::F32 => "small M (matrix-vector to 16 rows): B read once per 8 rows with 128-bit loads (four scalar loads where K or N is ragged), a reduction along K, split-K to fill the GPU",
            Precision::F16 => "gemv reading f16 operands (half the bytes of B), f32 arithmetic (needs SHADER_F16)",
        }
    }

    fn precision(&self) -> Precision {
        self.0
    }

    fn needs(&self) -> wgpu::Features {
        support::types_of(self.0)[0].needs()
    }

    fn tiling(&self, shape: Shape, _: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(Some(Box::new(GemvTiling {
            shape,
            precision: self.0,
        })))
    }

    fn worth_tuning(&self, shape: Shape) -> bool {
        // B read once per 8 rows of A: past twice the rows where the planner stops choosing
        // it, it only loses, and its trials at large shapes take many times the fastest kernel's
        // (BENCHMARKS.md, "The small-M kernel").
        shape.m <= 2 * super::GEMV_MAX_M
    }

    fn modules(&self) -> Vec<Module> {
        SOURCE.modules(self.0)
    }

    fn pipelines(&self, planner: &Planner, _: &Caps) -> Vec<PipelineUse> {
        // One set per value of MR (M = 1, 2, 4 and 8 rows per invocation).
        (0..4)
            .flat_map(|p| {
                let t = GemvTiling {
                    shape: Shape {
                        m: 1 << p,
                        k: 4096,
                        n: 4096,
                    },
                    precision: self.0,
                };
                let configs = fitting(planner, &t);
                let mut all = SOURCE.pipelines(self.0, "gemv", &configs);
                // The splits summed in the launch: one row (MR = 1), N a multiple of 4, K
                // ragged or not.
                if p > 0 {
                    return all;
                }
                all.extend(support::types_of(self.0).iter().flat_map(|types| {
                    // K ragged: A read in place.
                    let ragged_k = Form {
                        reads: InPlace { a: true, b: false },
                        store_ragged: false,
                    };
                    let mains = [
                        SOURCE.module(*types, Form::WIDE),
                        SOURCE.module(*types, ragged_k),
                    ];
                    let configs = &configs;
                    mains.into_iter().flat_map(move |main| {
                        configs
                            .iter()
                            .map(move |c| PipelineUse::new(&main, "gemv_summed", c.clone()))
                    })
                }));
                all
            })
            .collect()
    }

    fn launch<'a>(
        &'a self,
        gpu: &'a Gpu,
        io: Operands<'a>,
        shape: Shape,
        plan: Option<&'a Plan>,
    ) -> LocalFuture<'a, Result<Launch>> {
        Box::pin(async move {
            let plan = plan.expect("the gemv kernel has a plan");
            let wx = plan.constant("WX");
            let Shape { m, k, n } = shape;
            let n4 = round4(n);
            // A ragged K or N is read where it lies, four scalar loads per vec4 (zero outside:
            // fig 4.20): B is read once per block of rows, so copying it into rows of 4 would
            // cost more than the product. Every shape the library gives this kernel (up to 16
            // rows) meets the rule (`loads_in_place`), and a larger one forced here is read in
            // place too: B's wide loads take rows of 4 up to K (matmul_gemv_b_wide.wgsl), which
            // A copied alone would carry past B's last row.
            let mut frame = Frame::new(gpu, &SOURCE, io, shape, InPlace::ragged(shape)).await?;
            let col_groups = (n4 / 4).div_ceil(wx);
            let row_blocks = m.div_ceil(plan.constant("MR"));
            // The plan's split of K (see `split_k` among the candidates), each split a multiple of
            // 4 deep (128-bit loads).
            let (splits, k_split) = (plan.choice().splits, plan.choice().k_split);
            let params = gpu.uniform(&Params {
                m,
                k,
                n,
                col_groups,
                row_blocks,
                k_split,
                splits,
                _pad: 0,
            });
            if m == 1 && splits > 1 && n == n4 {
                // The matrix-vector product adds its splits in the same launch (`gemv_summed`):
                // the last workgroup of each block adds them into C, instead of a second launch
                // that waits for the whole product, which is faster at one row; with more rows the
                // summing workgroup has more to add and ran slower, so they keep `sum_splits`, as
                // does a ragged N, whose rows it stores (BENCHMARKS.md, "The small-M kernel").
                let parts = splits::partials(gpu, splits, m, n4).await?;
                let tally = splits::split_tally(gpu, (col_groups * row_blocks) as usize).await?;
                let (a, b, c, main) = frame.output_summed(splits);
                let step = gpu
                    .planned_step(
                        &main,
                        "gemv_summed",
                        plan,
                        &[
                            (0, a),
                            (1, b),
                            (2, c),
                            (3, params.bind()),
                            (4, parts.bind()),
                            (5, tally.bind()),
                        ],
                    )
                    .await?;
                let keep = Box::new((parts, tally));
                return frame
                    .finish_steps(gpu, vec![step], plan, Some(("", keep)))
                    .await;
            }
            let (a, b, c, main) = frame.output(gpu, splits, n4).await?;
            let step = gpu
                .planned_step(
                    &main,
                    "gemv",
                    plan,
                    &[(0, a), (1, b), (2, c), (3, params.bind())],
                )
                .await?;
            frame.finish(gpu, step, plan).await
        })
    }

    fn global_loads(&self, s: Shape, plan: Option<&Plan>) -> u64 {
        let wx = plan.map_or(64, |p| p.constant("WX")) as u64;
        let mr = plan.map_or(MB, |p| p.constant("MR")) as u64;
        let (m, k, n) = (s.m as u64, s.k as u64, s.n as u64);
        // B once per block of MR rows, A once per group of 4·WX columns.
        k * n * m.div_ceil(mr) + m * k * n.div_ceil(4 * wx)
    }
}
