//! `naive`: one invocation per element of C, every multiply-add reading A and B from global
//! memory, so the compute-to-global-memory-access ratio is 1.0 (PMPP fig 4.3). Shader:
//! `shaders/matmul.wgsl`, entry `naive`.

use super::{lesson_module, Caps, Kernel, Launch, Operands, Params, Shape};
use crate::kernels::{Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{KernelUse, Plan, Planner, Tiling};
use crate::{Gpu, Result};

/// The naive kernel's fixed 16×16 workgroup (`NAIVE` in the shader).
pub const NAIVE: u32 = 16;

/// What one 16×16 workgroup uses: no workgroup memory.
const USAGE: KernelUse = KernelUse {
    invocations: NAIVE * NAIVE,
    workgroup_bytes: 0,
    registers: 12,
};

/// The naive variant.
pub struct Naive;

impl Kernel for Naive {
    fn name(&self) -> &'static str {
        "naive"
    }

    fn about(&self) -> &'static str {
        "one invocation per element, everything from global memory (fig 4.3)"
    }

    fn tiling(&self, _: Shape, _: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(None)
    }

    fn modules(&self) -> Vec<Module> {
        vec![lesson_module()]
    }

    fn pipelines(&self, planner: &Planner, _: &Caps) -> Vec<PipelineUse> {
        if planner.check("naive", [NAIVE, NAIVE, 1], USAGE).is_err() {
            return vec![];
        }
        vec![PipelineUse::new(&lesson_module(), "naive", vec![])]
    }

    fn launch<'a>(
        &'a self,
        gpu: &'a Gpu,
        io: Operands<'a>,
        shape: Shape,
        _: Option<&'a Plan>,
    ) -> LocalFuture<'a, Result<Launch>> {
        Box::pin(async move {
            gpu.planner()
                .check("naive matmul 16x16", [NAIVE, NAIVE, 1], USAGE)?;
            let tiles_x = shape.n.div_ceil(NAIVE);
            let params = gpu.uniform(&Params {
                m: shape.m,
                k: shape.k,
                n: shape.n,
                tiles_x,
            });
            let dispatch = crate::dispatch::Dispatch::fold(
                "naive matmul",
                tiles_x as u64 * shape.m.div_ceil(NAIVE) as u64,
                gpu.limits().max_compute_workgroups_per_dimension,
            )?;
            let pipeline = gpu.pipeline(&lesson_module().shader, "naive", &[]).await?;
            let step = crate::launch::Step::new(
                gpu,
                &pipeline,
                &[(0, io.a), (1, io.b), (2, io.c), (3, params.bind())],
                dispatch,
            )
            .await?;
            Ok(Launch {
                steps: vec![step],
                scratch: vec![],
                tile: "16x16".into(),
                dispatch,
                splits: (1, shape.k),
            })
        })
    }

    fn global_loads(&self, s: Shape, _: Option<&Plan>) -> u64 {
        // A row of A and a column of B for every element of C.
        2 * s.m as u64 * s.n as u64 * s.k as u64
    }
}
