//! `tiled`: TILE×TILE tiles of A and B in workgroup memory (Mds, Nds in PMPP fig 4.16), two
//! barriers per phase, boundary checks of fig 4.20. Each phase loads one tile of each, so every
//! global element is read once per workgroup instead of once per invocation: global loads drop
//! by a factor of TILE. TILE is an override constant set from the planner. Shader:
//! `shaders/matmul.wgsl`, entry `tiled`.

use super::{lesson_module, Caps, Kernel, Launch, Operands, Params, Shape};
use crate::kernels::{fitting, Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{cdiv, KernelUse, Plan, Planner, Spec, Tiling};
use crate::{Gpu, Result};

/// The planner's view of the tiled kernel: TILE ∈ {4, 8, 16, 32}.
#[derive(Clone, Copy, Debug)]
pub struct TiledTiling {
    /// The problem.
    pub shape: Shape,
}

impl TiledTiling {
    /// For `shape`.
    pub fn new(shape: Shape) -> Self {
        TiledTiling { shape }
    }
}

impl Tiling for TiledTiling {
    fn kernel(&self) -> &'static str {
        "tiled-matmul"
    }

    fn sizes(&self) -> Vec<(&'static str, u64)> {
        let s = self.shape;
        vec![("m", s.m as u64), ("k", s.k as u64), ("n", s.n as u64)]
    }

    fn candidates(&self) -> Vec<Spec> {
        let Shape { m, n, .. } = self.shape;
        [4u32, 8, 16, 32]
            .into_iter()
            .map(|t| Spec {
                label: format!("TILE={t}"),
                constants: vec![("TILE", t)],
                workgroup_size: [t, t, 1],
                // Two T×T f32 tiles (fig 4.16: Mds and Nds): `mds`, `nds` in the shader.
                usage: KernelUse {
                    invocations: t * t,
                    workgroup_bytes: 2 * t * t * 4,
                    registers: 18,
                },
                reuse: t as f64,
                workgroups: cdiv(m as u64, t as u64) * cdiv(n as u64, t as u64),
                split_k: None,
                work: None,
            })
            .collect()
    }
}

/// The tiled variant.
pub struct Tiled;

impl Kernel for Tiled {
    fn name(&self) -> &'static str {
        "tiled"
    }

    fn about(&self) -> &'static str {
        "TILE×TILE workgroup tiles, two barriers per phase (figs 4.16, 4.20)"
    }

    fn tiling(&self, shape: Shape, _: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(Some(Box::new(TiledTiling::new(shape))))
    }

    fn modules(&self) -> Vec<Module> {
        vec![lesson_module()]
    }

    fn pipelines(&self, planner: &Planner, _: &Caps) -> Vec<PipelineUse> {
        let t = TiledTiling::new(Shape {
            m: 1024,
            k: 1024,
            n: 1024,
        });
        fitting(planner, &t)
            .into_iter()
            .map(|c| PipelineUse::new(&lesson_module(), "tiled", c))
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
            let plan = plan.expect("the tiled kernel has a plan");
            let t = plan.constant("TILE");
            let tiles_x = shape.n.div_ceil(t);
            let params = gpu.uniform(&Params {
                m: shape.m,
                k: shape.k,
                n: shape.n,
                tiles_x,
            });
            let step = gpu
                .planned_step(
                    &lesson_module().shader,
                    "tiled",
                    plan,
                    &[(0, io.a), (1, io.b), (2, io.c), (3, params.bind())],
                )
                .await?;
            Ok(Launch {
                steps: vec![step],
                scratch: vec![],
                tile: plan.choice().label.clone(),
                dispatch: plan.dispatch,
                splits: (1, shape.k),
            })
        })
    }

    fn global_loads(&self, s: Shape, plan: Option<&Plan>) -> u64 {
        // Each workgroup reads its band of A once per tile column and its band of B once per
        // tile row.
        let t = plan.map_or(16, |p| p.constant("TILE")) as u64;
        let (m, k, n) = (s.m as u64, s.k as u64, s.n as u64);
        m * k * n.div_ceil(t) + k * n * m.div_ceil(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{DeviceProfile, Limits};
    use crate::Error;

    fn tile(limits: Limits, profile: DeviceProfile) -> u32 {
        Planner::new(limits, profile)
            .plan(&TiledTiling::new(Shape {
                m: 1000,
                k: 1000,
                n: 1000,
            }))
            .unwrap()
            .constant("TILE")
    }

    #[test]
    fn webgpu_baseline_gives_tile_16_and_big_adapters_32() {
        let mut big = Limits::webgpu_default();
        big.max_compute_invocations_per_workgroup = 1024;
        big.max_compute_workgroup_size_x = 1024;
        big.max_compute_workgroup_size_y = 1024;
        big.max_compute_workgroup_storage_size = 48 * 1024;
        for p in DeviceProfile::all() {
            assert_eq!(tile(Limits::webgpu_default(), p.clone()), 16, "{}", p.name);
            // Device D's 16,384 registers cannot hold one 1024-invocation workgroup at 18
            // registers each, so the analysis keeps it at 16 even where the adapter allows 32.
            let expected = if p.name == "device-d" { 16 } else { 32 };
            assert_eq!(tile(big.clone(), p.clone()), expected, "{}", p.name);
        }
    }

    #[test]
    fn a_tile_the_adapter_cannot_hold_is_a_typed_error() {
        let d = DeviceProfile::book_device_d();
        let t = TiledTiling::new(Shape {
            m: 64,
            k: 64,
            n: 64,
        });
        let e = Planner::new(Limits::webgpu_default(), d.clone())
            .plan_forced(&t, &crate::plan::Tile::square(32))
            .unwrap_err();
        match &e {
            Error::TileTooLarge {
                limit_name,
                needed,
                limit,
                ..
            } => {
                assert_eq!(*limit_name, "max_compute_invocations_per_workgroup");
                assert_eq!((*needed, *limit), (1024, 256));
            }
            other => panic!("{other:?}"),
        }
        let mut small = Limits::webgpu_default();
        small.max_compute_workgroup_storage_size = 1024;
        let e = Planner::new(small, d)
            .plan_forced(&t, &crate::plan::Tile::square(16))
            .unwrap_err();
        assert!(
            e.to_string().contains("max_compute_workgroup_storage_size"),
            "{e}"
        );
    }
}
