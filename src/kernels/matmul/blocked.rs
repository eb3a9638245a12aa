//! `blocked`: each workgroup computes a BM×BN block of C, each invocation a TM×TN register tile,
//! K walked in BK slices staged through workgroup memory; 128-bit loads when K and N are
//! multiples of 4. Per slice a workgroup loads (BM + BN)·BK values for BM·BN·BK multiply-adds:
//! global loads drop by 2·BM·BN / (BM + BN) against the naive kernel. Shader:
//! `shaders/matmul.wgsl`, entries `blocked` and `blocked_vec4`.

use super::{lesson_module, Caps, Kernel, Launch, Operands, Params, Shape};
use crate::kernels::{fitting, Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{cdiv, KernelUse, Plan, Planner, Spec, Tiling};
use crate::{Gpu, Result};

/// The planner's view of the blocked kernel: (BM, BN, BK, TM, TN) from 128×128×16/8×8 down to
/// 16×16×16/2×2.
#[derive(Clone, Copy, Debug)]
pub struct BlockedTiling {
    /// The problem.
    pub shape: Shape,
}

impl BlockedTiling {
    /// For `shape`.
    pub fn new(shape: Shape) -> Self {
        BlockedTiling { shape }
    }
}

/// A BM×BN×BK block with TM×TN per invocation: its label, constants, workgroup and use.
pub(crate) fn block_spec(
    (bm, bn, bk, tm, tn): (u32, u32, u32, u32, u32),
    shape: Shape,
    bytes: u32,
    extra_registers: u32,
) -> Spec {
    let (wx, wy) = (bn / tn, bm / tm);
    Spec {
        label: format!("{bm}x{bn}x{bk}/{tm}x{tn}"),
        constants: vec![("BM", bm), ("BN", bn), ("BK", bk), ("TM", tm), ("TN", tn)],
        workgroup_size: [wx, wy, 1],
        usage: KernelUse {
            invocations: wx * wy,
            workgroup_bytes: bytes,
            // The TM×TN accumulators, a column of A and a row of B, and addressing.
            registers: tm * tn + tm + tn + 20 + extra_registers,
        },
        reuse: super::support::block_reuse(bm as f64, bn as f64),
        workgroups: cdiv(shape.m as u64, bm as u64) * cdiv(shape.n as u64, bn as u64),
        split_k: None,
        work: None,
    }
}

impl Tiling for BlockedTiling {
    fn kernel(&self) -> &'static str {
        "blocked-matmul"
    }

    fn sizes(&self) -> Vec<(&'static str, u64)> {
        let s = self.shape;
        vec![("m", s.m as u64), ("k", s.k as u64), ("n", s.n as u64)]
    }

    fn candidates(&self) -> Vec<Spec> {
        [
            (128u32, 128u32, 16u32, 8u32, 8u32),
            (128, 128, 8, 8, 8),
            (128, 64, 16, 8, 4),
            (64, 64, 16, 4, 4),
            (64, 64, 8, 4, 4),
            (32, 32, 16, 4, 4),
            (16, 16, 16, 2, 2),
        ]
        .into_iter()
        // `a_slice` (BK×BM) and `b_slice` (BK×BN), f32.
        .map(|b @ (bm, bn, bk, _, _)| block_spec(b, self.shape, (bm * bk + bk * bn) * 4, 0))
        .collect()
    }
}

/// The blocked variant.
pub struct Blocked;

impl Kernel for Blocked {
    fn name(&self) -> &'static str {
        "blocked"
    }

    fn about(&self) -> &'static str {
        "BM×BN block per workgroup, TM×TN register tile per invocation, vec4 loads when K and N are multiples of 4"
    }

    fn tiling(&self, shape: Shape, _: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(Some(Box::new(BlockedTiling::new(shape))))
    }

    fn modules(&self) -> Vec<Module> {
        vec![lesson_module()]
    }

    fn pipelines(&self, planner: &Planner, _: &Caps) -> Vec<PipelineUse> {
        let t = BlockedTiling::new(Shape {
            m: 1024,
            k: 1024,
            n: 1024,
        });
        fitting(planner, &t)
            .into_iter()
            .flat_map(|c| {
                ["blocked", "blocked_vec4"]
                    .map(|e| PipelineUse::new(&lesson_module(), e, c.clone()))
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
            let plan = plan.expect("the blocked kernel has a plan");
            let super::Block { bm, bn } = super::Block::of(plan);
            let tiles_x = shape.n.div_ceil(bn);
            // 128-bit loads where every row of A and B starts on a 16-byte boundary.
            let vec4 = shape.k.is_multiple_of(4) && shape.n.is_multiple_of(4);
            let params = gpu.uniform(&Params {
                m: shape.m,
                k: shape.k,
                n: shape.n,
                tiles_x,
            });
            let (a_at, b_at) = if vec4 { (4, 5) } else { (0, 1) };
            let step = gpu
                .planned_step(
                    &lesson_module().shader,
                    if vec4 { "blocked_vec4" } else { "blocked" },
                    plan,
                    &[(a_at, io.a), (b_at, io.b), (2, io.c), (3, params.bind())],
                )
                .await?;
            let _ = bm;
            let label = &plan.choice().label;
            Ok(Launch {
                steps: vec![step],
                scratch: vec![],
                tile: if vec4 {
                    format!("{label} vec4")
                } else {
                    label.clone()
                },
                dispatch: plan.dispatch,
                splits: (1, shape.k),
            })
        })
    }

    fn global_loads(&self, s: Shape, plan: Option<&Plan>) -> u64 {
        plan.map_or(super::Block { bm: 64, bn: 64 }, super::Block::of)
            .global_loads(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{DeviceProfile, Limits};

    fn plan(limits: Limits, profile: &str, n: u32) -> crate::plan::Plan {
        Planner::new(limits, DeviceProfile::named(profile).unwrap())
            .plan(&BlockedTiling::new(Shape { m: n, k: n, n }))
            .unwrap()
    }

    #[test]
    fn under_16_kib_the_largest_block_is_128x128x16() {
        let b = plan(Limits::webgpu_default(), "default", 4096);
        assert_eq!(b.choice().label, "128x128x16/8x8");
        assert!(b.choice().usage.workgroup_bytes <= 16_384);
    }

    #[test]
    fn small_problems_get_smaller_blocks_on_a_large_gpu() {
        let big = plan(Limits::preset("h100").unwrap(), "hopper", 4096);
        let small = plan(Limits::preset("h100").unwrap(), "hopper", 256);
        assert!(
            big.constant("BM") > small.constant("BM"),
            "{}\n{}",
            big.table(),
            small.table()
        );
    }
}
