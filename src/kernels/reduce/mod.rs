//! Tree reduction (Professional CUDA C Programming §5.3): global, workgroup, unroll4,
//! dynamic, grid-stride, subgroup and one-pass variants of sum, min and max over f32, i32 and
//! u32.
//! Shaders: `shaders/reduce.wgsl` and, on adapters with subgroups, `shaders/reduce_subgroup.wgsl`
//! appended to it. Launches, prepared once per input buffer: `recipe.rs`. Tests:
//! `tests/reduce.rs`. Example: `examples/05_reduction.rs`.
//!
//! Accuracy: an f32 sum is accumulated per invocation with Kahan compensation and then combined
//! pairwise by the trees, so its error is at most (⌈log₂ n⌉ + 2)·2⁻²⁴·Σ|xᵢ| (the pairwise-summation
//! bound, tested in `tests/reduce.rs`). Integer sums wrap modulo 2³², as WGSL's i32/u32 arithmetic.
//! min and max propagate NaN (as NumPy's do); a sum with a NaN is NaN.

mod recipe;

use super::{Family, Module, PipelineUse, PlanKernel};
use crate::buffer::{DeviceBuffer, Input};
use crate::launch::Timing;
use crate::pipeline::Shader;
use crate::plan::{workgroup_size_candidates, KernelUse, Plan, Planner, Scoring, Spec, Tiling};
use crate::{Gpu, Result};
use serde::Serialize;

const SOURCE: &str = include_str!("../../../shaders/reduce.wgsl");
const SUBGROUP_SOURCE: &str = include_str!("../../../shaders/reduce_subgroup.wgsl");
const ALIAS: &str = "alias Elem = f32;";
const TYPES: [&str; 3] = ["f32", "i32", "u32"];

/// The shader source for element type `ty` (`f32`, `i32`, `u32`).
pub fn specialise(source: &str, ty: &str) -> String {
    assert!(source.contains(ALIAS), "reduce.wgsl must declare `{ALIAS}`");
    source.replace(ALIAS, &format!("alias Elem = {ty};"))
}

/// The module for element type `ty`, with the subgroup entry point when `subgroup`.
pub fn module(ty: &str, subgroup: bool) -> Module {
    if subgroup {
        Module {
            shader: Shader::owned(
                format!("reduce_subgroup<{ty}>"),
                specialise(&[SOURCE, SUBGROUP_SOURCE].concat(), ty),
            ),
            needs: wgpu::Features::SUBGROUP,
        }
    } else {
        Module {
            shader: Shader::owned(format!("reduce<{ty}>"), specialise(SOURCE, ty)),
            needs: wgpu::Features::empty(),
        }
    }
}

/// The planner's view of the reduction: a workgroup of WG invocations, one element of
/// workgroup memory each (`dyn_data` in the shader).
#[derive(Clone, Copy, Debug)]
pub struct ReduceTiling {
    /// Elements.
    pub n: u64,
}

impl Tiling for ReduceTiling {
    fn kernel(&self) -> &'static str {
        "reduce"
    }
    fn sizes(&self) -> Vec<(&'static str, u64)> {
        vec![("n", self.n)]
    }
    fn candidates(&self) -> Vec<Spec> {
        workgroup_size_candidates(self.n, 4, 16)
    }
    fn scoring(&self) -> Scoring {
        Scoring::Occupancy
    }
}

/// An element type the reduction supports.
pub trait Element:
    bytemuck::Pod + PartialEq + std::fmt::Debug + std::fmt::Display + Send + Sync
{
    /// Its WGSL name.
    const WGSL: &'static str;
    /// The identity of `op` as bits.
    fn identity_bits(op: Op) -> u32;
}

impl Element for f32 {
    const WGSL: &'static str = "f32";
    fn identity_bits(op: Op) -> u32 {
        match op {
            Op::Sum => 0f32.to_bits(),
            Op::Min => f32::INFINITY.to_bits(),
            Op::Max => f32::NEG_INFINITY.to_bits(),
        }
    }
}

impl Element for i32 {
    const WGSL: &'static str = "i32";
    fn identity_bits(op: Op) -> u32 {
        match op {
            Op::Sum => 0,
            Op::Min => i32::MAX as u32,
            Op::Max => i32::MIN as u32,
        }
    }
}

impl Element for u32 {
    const WGSL: &'static str = "u32";
    fn identity_bits(op: Op) -> u32 {
        match op {
            Op::Sum => 0,
            Op::Min => u32::MAX,
            Op::Max => 0,
        }
    }
}

crate::family::named_enum! {
    /// The reduction operator.
    pub enum Op ("reduce op") {
        /// Sum (wrapping for integers).
        Sum => "sum",
        /// Minimum (NaN propagates).
        Min => "min",
        /// Maximum (NaN propagates).
        Max => "max",
    }
}

impl Op {
    fn code(self) -> u32 {
        self as u32
    }
}

crate::family::named_enum! {
    /// The progression of the lesson, each step kept runnable.
    pub enum Variant ("reduce variant") {
        /// reduceGmem: the tree in global memory, storage barriers between steps.
        Global => "global",
        /// reduceSmem: a fixed 256-element workgroup array.
        Workgroup => "workgroup",
        /// reduceUnroll4Smem: four loads added per invocation before the tree.
        Unroll4 => "unroll4",
        /// The workgroup array sized by an override constant from the planner.
        Dynamic => "dynamic",
        /// Unroll 4 with a grid-stride loop over a fixed number of workgroups (resident ones).
        GridStride => "grid-stride",
        /// Grid-stride, then subgroup operations instead of the last tree steps.
        Subgroup => "subgroup",
        /// Subgroup in one launch: the last workgroup to finish combines the partials.
        OnePass => "one-pass",
    }
}

impl Variant {
    /// The optional features it needs.
    pub fn needs(self) -> wgpu::Features {
        if self.subgroup() {
            wgpu::Features::SUBGROUP
        } else {
            wgpu::Features::empty()
        }
    }

    /// Whether it uses subgroup operations (its entry point is in `reduce_subgroup.wgsl`).
    fn subgroup(self) -> bool {
        matches!(self, Variant::Subgroup | Variant::OnePass)
    }

    fn entry(self) -> &'static str {
        match self {
            Variant::Global => "global_tree",
            Variant::Workgroup => "workgroup_tree",
            Variant::Unroll4 | Variant::Dynamic | Variant::GridStride => "dynamic_tree",
            Variant::Subgroup => "subgroup_tree",
            Variant::OnePass => "one_pass",
        }
    }

    /// Items each invocation adds before the tree: four for the unrolled variants (the
    /// lesson's reduceSmemUnroll, Professional CUDA C Programming §5.3), else one.
    fn unroll(self) -> u32 {
        match self {
            Variant::Unroll4 | Variant::GridStride | Variant::Subgroup | Variant::OnePass => 4,
            _ => 1,
        }
    }

    /// Whether the first launch reads the caller's input with 128-bit loads (the wide-loads
    /// lesson); later launches read the partial sums one word at a time.
    fn wide(self) -> bool {
        matches!(
            self,
            Variant::GridStride | Variant::Subgroup | Variant::OnePass
        )
    }

    /// The workgroup size: reduceSmem's array is fixed at 256 elements, the others take the
    /// planner's.
    fn workgroup_size(self, planned: u32) -> u32 {
        if self == Variant::Workgroup {
            256
        } else {
            planned
        }
    }

    /// The constants of its pipelines: the scalar launch's, then, for a wide variant, the
    /// first launch's with `VEC4` set (one-pass has only that launch). Shared by the launch and
    /// the pipeline list, so the two cannot disagree.
    fn pipeline_constants(self, op: Op, ty: &str, wg: u32) -> Vec<Vec<(String, f64)>> {
        let scalar = constants(op, ty, wg, self.unroll());
        if !self.wide() {
            return vec![scalar];
        }
        let mut vec4 = scalar.clone();
        vec4.push(("VEC4".to_string(), 1.0));
        if self == Variant::OnePass {
            return vec![vec4]; // its one launch reads the input
        }
        vec![scalar, vec4]
    }
}

/// What one reduction did.
#[derive(Clone, Debug, Serialize)]
pub struct ReduceRun {
    /// The kernel.
    pub variant: Variant,
    /// The operator.
    pub op: Op,
    /// Values reduced.
    pub n: u64,
    /// Launches (passes) until one value was left.
    pub launches: usize,
    /// Bytes read plus bytes written over all launches.
    pub bytes: u64,
    /// Workgroup size.
    pub workgroup: u32,
    /// The planner's analysis of the workgroup size.
    pub plan: Plan,
    /// GPU time of all launches.
    pub timing: Timing,
}

impl ReduceRun {
    /// Effective bandwidth, (bytes read + bytes written) / time, bytes per second.
    pub fn bytes_per_second(&self) -> f64 {
        self.bytes as f64 / self.timing.seconds
    }

    /// [`ReduceRun::bytes_per_second`] in GB/s.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.timing.seconds / 1e9
    }
}

impl Gpu {
    /// The variant [`Gpu::reduce`] uses: one pass with subgroups where the adapter has them,
    /// else grid-stride.
    pub(crate) fn default_reduce_variant(&self) -> Variant {
        if self.has(wgpu::Features::SUBGROUP) && !self.is_cpu() {
            Variant::OnePass
        } else {
            Variant::GridStride
        }
    }

    /// Reduce `input` (a host slice or a device buffer) to one value with `variant`, timed by
    /// the GPU's timestamps where it has them: the run's figures beside the value.
    pub fn reduce_with<'a, T: Element>(
        &'a self,
        input: impl Into<Input<'a, T>>,
        op: Op,
        variant: Variant,
    ) -> crate::Call<'a, (T, ReduceRun)> {
        let input = input.into();
        crate::Call::new(async move {
            let input = self.resident("reduce input", input).await?;
            self.reduce_timed(&input, op, variant, true).await
        })
    }

    /// Reduce `input` (a host slice or a device buffer) to one value with the fastest variant
    /// this adapter supports ([`default_variant`]). The answer only, untimed: the launches and
    /// the readback in one submission and one wait, no timestamp queries (the cheapest whole
    /// call; `reduce-call/1M` in the bench).
    pub fn reduce<'a, T: Element>(
        &'a self,
        input: impl Into<Input<'a, T>>,
        op: Op,
    ) -> crate::Call<'a, T> {
        let input = input.into();
        crate::Call::new(async move {
            let input = self.resident("reduce input", input).await?;
            let recipe = self
                .reduce_recipe(&input, op, self.default_reduce_variant())
                .await?;
            Ok(self.run_recipe(&input, &recipe, false).await?.0)
        })
    }

    async fn reduce_timed<T: Element>(
        &self,
        input: &DeviceBuffer<T>,
        op: Op,
        variant: Variant,
        timed: bool,
    ) -> Result<(T, ReduceRun)> {
        let recipe = self.reduce_recipe(input, op, variant).await?;
        let (value, timing) = self.run_recipe(input, &recipe, timed).await?;
        Ok((
            value,
            ReduceRun {
                variant,
                op,
                n: input.len() as u64,
                launches: recipe.steps.len(),
                bytes: recipe.bytes,
                workgroup: recipe.workgroup,
                plan: recipe.plan.clone(),
                timing,
            },
        ))
    }
}

/// The constants of one launch: operator, identity, Kahan, type, workgroup size, unroll.
fn constants(op: Op, ty: &str, wg: u32, unroll: u32) -> Vec<(String, f64)> {
    vec![
        ("OP".to_string(), op.code() as f64),
        ("IDENTITY_BITS".to_string(), identity_of(ty, op) as f64),
        (
            "KAHAN".to_string(),
            (op == Op::Sum && ty == "f32") as u32 as f64,
        ),
        ("IS_FLOAT".to_string(), (ty == "f32") as u32 as f64),
        ("WG".to_string(), wg as f64),
        ("UNROLL".to_string(), unroll as f64),
    ]
}

/// The identity of `op` for the element type named `ty` in WGSL ([`Element::identity_bits`]).
fn identity_of(ty: &str, op: Op) -> u32 {
    match ty {
        "f32" => f32::identity_bits(op),
        "i32" => i32::identity_bits(op),
        _ => u32::identity_bits(op),
    }
}

/// The reduction family.
pub(crate) struct Reduce;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Reduce = Reduce;

impl Family for Reduce {
    fn name(&self) -> &'static str {
        "reduce"
    }

    fn about(&self) -> &'static str {
        "tree reduction: global → workgroup → unroll4 → dynamic → grid-stride → subgroup → one pass (the reduction lesson)"
    }

    fn modules(&self) -> Vec<Module> {
        TYPES
            .iter()
            .flat_map(|ty| [module(ty, false), module(ty, true)])
            .collect()
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        let mut out = Vec::new();
        let fits = |wg: u32| {
            let usage = KernelUse {
                invocations: wg,
                workgroup_bytes: wg * 4,
                registers: 16,
            };
            planner.check("reduce", [wg, 1, 1], usage).is_ok()
        };
        let sizes: Vec<u32> = ReduceTiling { n: 1 << 20 }
            .candidates()
            .iter()
            .map(|s| s.workgroup_size[0])
            .filter(|&wg| fits(wg))
            .collect();
        for ty in TYPES {
            for op in Op::ALL {
                for v in Variant::ALL {
                    let m = module(ty, v.subgroup());
                    let wgs = if v == Variant::Workgroup {
                        vec![256]
                    } else {
                        sizes.clone()
                    };
                    for wg in wgs.into_iter().filter(|&w| fits(w)) {
                        for c in v.pipeline_constants(op, ty, wg) {
                            out.push(PipelineUse::new(&m, v.entry(), c));
                        }
                    }
                }
            }
        }
        out
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "reduce",
            sizes: &[("N", 1 << 24)],
            make: |s, _| Ok(Box::new(ReduceTiling { n: s[0] })),
        }]
    }
}

/// The variant a sum on `gpu` uses when none is asked for (what [`Gpu::reduce`] runs).
pub fn default_variant(gpu: &Gpu) -> Variant {
    gpu.default_reduce_variant()
}
