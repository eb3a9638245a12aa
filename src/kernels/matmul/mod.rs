//! Matrix multiply (PMPP 4.2–4.6), C = A·B for row-major A (M×K) and B (K×N), any M, K, N ≥ 1.
//!
//! The lesson's progression, each step a variant: one invocation per element reading everything
//! from global memory (`naive`, fig 4.3); TILE×TILE tiles in workgroup memory (`tiled`, figs 4.16
//! and 4.20); a register-blocked kernel that makes it fast (`blocked`); and the kernels a library
//! needs for every shape a program meets, chosen per shape ([`Gpu::select_matmul`]).
//!
//! Every variant is one file here and one line in `VARIANTS`: its shader, its planner
//! candidates (what one workgroup of each uses, counted from the shader's declarations), how it
//! launches and how many global loads it makes. Tests: `tests/matmul.rs` (answers) and
//! `tests/matmul_plan.rs` (plans). Lessons: `lesson.rs` (examples `02_tiled_matmul`,
//! `03_tile_from_limits`).

mod api;
pub mod blocked;
mod ceiling;
pub mod coop;
mod frame;
pub mod gemv;
mod in_place;
pub mod naive;
pub mod pipelined;
mod select;
mod source;
mod splits;
mod support;
pub mod tiled;
pub mod tune;
mod verify;

pub use select::{
    measured_rates, plan, planner_choice, select, selection_named, Chosen, Selection,
    GEMV_F16_MAX_M_BESIDE_COOP, GEMV_MAX_M,
};

pub use verify::{f16_bound, f16_input_bound, f32_bound, reference, verify, verify_sampled};

pub use in_place::{loads_in_place, IN_PLACE_REUSE, IN_PLACE_UP_TO};
pub use support::Types;

use super::{Family, Module, PipelineUse, PlanKernel};
use crate::dispatch::Dispatch;
use crate::launch::{Step, Timing};
use crate::plan::{ChosenBy, Plan, Planner, Tiling};
use crate::pool::Bind;
use crate::{Error, Gpu, Result};
use serde::Serialize;

/// Every matmul variant, in the lesson's order. One line registers one; the command line, the
/// bench, the autotuner, the shader tests and the selection iterate over this list.
static VARIANTS: &[&dyn Kernel] = &[
    &naive::Naive,
    &tiled::Tiled,
    &blocked::Blocked,
    &pipelined::PIPELINED,
    &gemv::GEMV,
    &pipelined::PIPELINED_F16,
    &gemv::GEMV_F16,
    &coop::Coop,
];

/// The element type of A, B and C.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// f32 in, f32 out, f32 arithmetic.
    F32,
    /// f16 in and out, f32 accumulation.
    F16,
}

impl Precision {
    /// `f32` or `f16`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
        }
    }

    /// Parse `f32` or `f16`.
    pub fn parse(s: &str) -> Result<Precision> {
        match s {
            "f32" => Ok(Precision::F32),
            "f16" => Ok(Precision::F16),
            other => Err(Error::Unknown {
                what: "precision",
                got: other.to_string(),
                choices: vec!["f32".into(), "f16".into()],
            }),
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F16 => 2,
        }
    }
}

/// An element type the matmul takes: f32, or f16 (`half::f16`) on adapters with SHADER_F16.
pub trait Element: bytemuck::Pod + Send + Sync {
    /// Which precision it is.
    const PRECISION: Precision;
    /// The value as f32 (exact for both), for the references.
    fn to_f32(self) -> f32;
}
impl Element for f32 {
    const PRECISION: Precision = Precision::F32;
    fn to_f32(self) -> f32 {
        self
    }
}
impl Element for half::f16 {
    const PRECISION: Precision = Precision::F16;
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
}

pub use crate::limits::Caps;

/// A, B and C bound for a launch.
#[derive(Clone, Copy)]
pub struct Operands<'a> {
    /// A, M×K.
    pub a: Bind<'a>,
    /// B, K×N.
    pub b: Bind<'a>,
    /// C, M×N.
    pub c: Bind<'a>,
    /// The element types of A and B, and of C.
    pub types: Types,
}

/// A launch's scratch buffers, of any element type, kept until its steps have run (a queued
/// call hands them back to the pool once recorded: see `Gpu::enqueue`).
pub(crate) type Scratch = Vec<Box<dyn std::any::Any + Send>>;

/// The steps of one product and the scratch buffers they use (kept alive until they ran), and
/// what the main step was given: its grid and split of K, which the plan decided
/// (`tests/matmul.rs` checks the two agree for every variant).
pub(crate) struct Launch {
    /// Dispatches, in order, in one compute pass.
    pub steps: Vec<Step>,
    /// Scratch buffers (padded copies, split-K partials).
    pub scratch: Scratch,
    /// How it launched, for the run's `tile` (e.g. `128x128x16/8x8 vec4`).
    pub tile: String,
    /// The main step's grid.
    pub dispatch: Dispatch,
    /// Slices of K and the depth of each (1 and K without a split).
    pub splits: (u32, u32),
}

/// One matmul variant: a kernel and everything the library needs to plan, launch and count it.
pub(crate) trait Kernel: Sync {
    /// Name on the command line.
    fn name(&self) -> &'static str;
    /// One line: what it does and where it is good.
    fn about(&self) -> &'static str;
    /// The element type it takes.
    fn precision(&self) -> Precision {
        Precision::F32
    }
    /// The optional features it needs.
    fn needs(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }
    /// The planner's view of it for `shape` (`None`: it has no tile to choose). A typed error
    /// when the adapter cannot run it at all (a missing cooperative-matrix configuration).
    fn tiling(&self, shape: Shape, caps: &Caps) -> Result<Option<Box<dyn Tiling>>>;
    /// Whether `tilekit tune` times it at `shape`: every variant everywhere, but one written
    /// for a range of shapes outside which it only loses (and slowly).
    fn worth_tuning(&self, _shape: Shape) -> bool {
        true
    }
    /// The shader modules it builds.
    fn modules(&self) -> Vec<Module>;
    /// Every pipeline it can launch under `planner`'s limits.
    fn pipelines(&self, planner: &Planner, caps: &Caps) -> Vec<PipelineUse>;
    /// The steps of one product with `plan`'s constants (`None` for a variant with no tile).
    /// Boxed: a trait object's method cannot be an `async fn`.
    fn launch<'a>(
        &'a self,
        gpu: &'a Gpu,
        io: Operands<'a>,
        shape: Shape,
        plan: Option<&'a Plan>,
    ) -> crate::launch::LocalFuture<'a, Result<Launch>>;
    /// Elements loaded from global memory by one product, as the kernel is written (the
    /// lesson's compute-to-global-memory-access ratio is 2·M·N·K over this).
    fn global_loads(&self, shape: Shape, plan: Option<&Plan>) -> u64;
}

/// A matmul variant, by name (`naive`, `tiled`, `blocked`, ...): a handle on `VARIANTS`.
#[derive(Clone, Copy)]
pub struct Variant(&'static dyn Kernel);

impl Variant {
    /// One invocation per element (fig 4.3).
    pub const NAIVE: Variant = Variant(&naive::Naive);
    /// Workgroup tiles (figs 4.16, 4.20).
    pub const TILED: Variant = Variant(&tiled::Tiled);
    /// Register-blocked.
    pub const BLOCKED: Variant = Variant(&blocked::Blocked);
    /// Double-buffered, prefetching, split-K.
    pub const PIPELINED: Variant = Variant(&pipelined::PIPELINED);
    /// Small M.
    pub const GEMV: Variant = Variant(&gemv::GEMV);
    /// The pipelined kernel reading f16 (f32 arithmetic on the scalar units).
    pub const PIPELINED_F16: Variant = Variant(&pipelined::PIPELINED_F16);
    /// The small-M kernel reading f16.
    pub const GEMV_F16: Variant = Variant(&gemv::GEMV_F16);
    /// f16 on the matrix units (cooperative matrices).
    pub const COOP: Variant = Variant(&coop::Coop);

    /// Every variant, in the lesson's order.
    pub fn all() -> impl Iterator<Item = Variant> {
        VARIANTS.iter().map(|k| Variant(*k))
    }

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// One line: what it does and where it is good.
    pub fn about(self) -> &'static str {
        self.0.about()
    }

    /// The element type it takes.
    pub fn precision(self) -> Precision {
        self.0.precision()
    }

    /// The optional features it needs.
    pub fn needs(self) -> wgpu::Features {
        self.0.needs()
    }

    /// The planner's view of it for `shape` (`None`: it has no tile to choose); a typed error
    /// when an adapter with `caps` cannot run it at all.
    pub fn tiling(self, shape: Shape, caps: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        self.0.tiling(shape, caps)
    }

    /// Every pipeline it can launch under `planner`'s limits on an adapter with `caps` (what
    /// the shader-translation tests build).
    pub fn pipelines(self, planner: &Planner, caps: &Caps) -> Vec<PipelineUse> {
        self.0.pipelines(planner, caps)
    }

    /// Whether `tilekit tune` times it at `shape`.
    pub(crate) fn worth_tuning(self, shape: Shape) -> bool {
        self.0.worth_tuning(shape)
    }

    /// Elements it loads from global memory for one product with `plan` (PMPP 4.2's count).
    pub fn global_loads(self, shape: Shape, plan: Option<&Plan>) -> u64 {
        self.0.global_loads(shape, plan)
    }

    /// Its implementation. (Not `kernel`: the command line calls the public [`Tiling::kernel`],
    /// and tests/layers.rs tells the two apart by name.)
    pub(crate) fn imp(self) -> &'static dyn Kernel {
        self.0
    }

    /// Parse a name; an unknown one is a typed error listing the choices.
    pub fn parse(s: &str) -> Result<Variant> {
        Variant::all()
            .find(|v| v.name() == s)
            .ok_or_else(|| Error::Unknown {
                what: "matmul variant",
                got: s.to_string(),
                choices: Variant::all().map(|v| v.name().to_string()).collect(),
            })
    }
}

impl PartialEq for Variant {
    fn eq(&self, other: &Variant) -> bool {
        self.name() == other.name()
    }
}
impl Eq for Variant {}

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Variant, D::Error> {
        Variant::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A checked problem shape: A is m×k, B is k×n, C is m×n.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Shape {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Columns of B and C.
    pub n: u32,
}

impl Shape {
    /// Check sizes: each at least 1, and every matrix addressable with u32 indices (also when
    /// padded to a multiple of 4, as the vector kernels do).
    pub fn new(m: usize, k: usize, n: usize) -> Result<Shape> {
        for (name, v) in [("M", m), ("K", k), ("N", n)] {
            if v == 0 {
                return Err(Error::zero(format!("matmul dimension {name}")));
            }
        }
        for (name, r, c) in [("A", m, k), ("B", k, n), ("C", m, n)] {
            let elems = r
                .checked_mul(c.saturating_add(3))
                .filter(|&e| e <= u32::MAX as usize / 4);
            if elems.is_none() {
                return Err(Error::SizeOverflow {
                    what: format!("matrix {name}"),
                    detail: format!("{r}×{c} elements do not fit 32-bit byte offsets"),
                });
            }
        }
        let u = |v: usize| v as u32; // checked above: each dimension <= u32::MAX / 4
        Ok(Shape {
            m: u(m),
            k: u(k),
            n: u(n),
        })
    }

    /// 2·M·N·K.
    pub fn flops(&self) -> u64 {
        2 * self.m as u64 * self.n as u64 * self.k as u64
    }

    /// M, K, N as usize.
    pub fn dims(&self) -> (usize, usize, usize) {
        (self.m as usize, self.k as usize, self.n as usize)
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}×{}×{}", self.m, self.k, self.n)
    }
}

/// What one run did: the analytical counts of PMPP 4.2 next to the measured time.
#[derive(Clone, Debug, Serialize)]
pub struct MatmulRun {
    /// The kernel.
    pub variant: Variant,
    /// The element type.
    pub precision: Precision,
    /// The problem.
    pub shape: Shape,
    /// The tile the run used (`16x16` for naive, `TILE=16`, `128x128x16/8x8 vec4`).
    pub tile: String,
    /// The planner's analysis (absent for naive, which has no tile to choose), shared with the
    /// plans the [`crate::Gpu`] holds.
    pub plan: Option<std::sync::Arc<Plan>>,
    /// The grid the main kernel was launched with: the plan's `dispatch`.
    pub dispatch: Dispatch,
    /// Slices of K the main kernel computed separately (the plan's `splits`; 1 without a split).
    pub splits: u32,
    /// The depth of K each slice covers (the plan's `k_split`; K without a split).
    pub k_split: u32,
    /// Who chose the variant: the caller, the autotuner's cache or the planner's rules (the
    /// plan's own `chosen_by` says who chose the tile).
    pub chosen_by: ChosenBy,
    /// 2·M·N·K.
    pub flops: u64,
    /// Elements loaded from global memory, as the kernel is written.
    pub global_loads: u64,
    /// Bytes loaded and stored: element size × (loads + M·N).
    pub global_bytes: u64,
    /// Compute-to-global-memory-access ratio, FLOPs per element loaded (PMPP 4.2: 1.0 for
    /// naive).
    pub ratio: f64,
    /// The measured time: every pass of the call (padding, split-K sum, and for f16 compute of
    /// f32 data the two conversions, recorded in the same submission).
    pub timing: Timing,
}

impl MatmulRun {
    /// FLOP per second.
    pub fn flop_per_second(&self) -> f64 {
        self.flops as f64 / self.timing.seconds
    }

    /// GFLOP/s.
    pub fn gflops(&self) -> f64 {
        self.flop_per_second() / 1e9
    }
}

/// The params uniform the matmul shaders share.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct Params {
    pub m: u32,
    pub k: u32,
    pub n: u32,
    pub tiles_x: u32,
}

/// The matmul family.
pub(crate) struct Matmul;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Matmul = Matmul;

impl Family for Matmul {
    fn name(&self) -> &'static str {
        "matmul"
    }

    fn about(&self) -> &'static str {
        "matrix multiply: naive, tiled in workgroup memory, register-blocked, and kernels chosen per shape (PMPP 4.2-4.7)"
    }

    fn modules(&self) -> Vec<Module> {
        // The matrix units' ceiling sits with the kernel it is the ceiling of.
        let mut all: Vec<Module> = vec![ceiling::module()];
        for v in VARIANTS {
            for m in v.modules() {
                if !all.iter().any(|x| x.shader.name == m.shader.name) {
                    all.push(m);
                }
            }
        }
        all
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        // The pipelines every adapter can build: no cooperative-matrix configuration (those
        // translate to SPIR-V only; tests/matmul_f16.rs checks them).
        let caps = Caps {
            coop: Vec::new(),
            subgroup_sizes: [
                planner.limits.subgroup_min_size,
                planner.limits.subgroup_max_size,
            ],
            adapter: String::new(),
        };
        VARIANTS
            .iter()
            .flat_map(|v| v.pipelines(planner, &caps))
            .collect()
    }

    fn plans(&self) -> Vec<PlanKernel> {
        fn shape(s: &[u64]) -> Result<Shape> {
            let d = |i: usize| s[i] as usize;
            Shape::new(d(0), d(1), d(2))
        }
        // Every variant with a tile to choose, and `matmul`: the kernel a call gets, by the
        // planner's rules (`tilekit plan` asks the library instead when it has the adapter, so
        // that the autotuner's cache counts too).
        fn tiling(v: Variant, s: &[u64], caps: &Caps) -> Result<Box<dyn Tiling>> {
            v.tiling(shape(s)?, caps)?
                .ok_or_else(|| Error::InvalidArgument {
                    what: format!("the {v} matmul"),
                    why: "it has no tile to choose".into(),
                })
        }
        const MKN: &[(&str, u64)] = &[("M", 1024), ("K", 1024), ("N", 1024)];
        vec![
            PlanKernel {
                name: "matmul",
                sizes: MKN,
                make: |s, caps| {
                    let v = if shape(s)?.m <= GEMV_MAX_M {
                        Variant::GEMV
                    } else {
                        Variant::PIPELINED
                    };
                    tiling(v, s, caps)
                },
            },
            PlanKernel {
                name: "tiled-matmul",
                sizes: MKN,
                make: |s, caps| tiling(Variant::TILED, s, caps),
            },
            PlanKernel {
                name: "blocked-matmul",
                sizes: MKN,
                make: |s, caps| tiling(Variant::BLOCKED, s, caps),
            },
            PlanKernel {
                name: "pipelined-matmul",
                sizes: MKN,
                make: |s, caps| tiling(Variant::PIPELINED, s, caps),
            },
            PlanKernel {
                name: "gemv-matmul",
                sizes: &[("M", 1), ("K", 4096), ("N", 4096)],
                make: |s, caps| tiling(Variant::GEMV, s, caps),
            },
            PlanKernel {
                name: "coop-matmul",
                sizes: &[("M", 4096), ("K", 4096), ("N", 4096)],
                make: |s, caps| tiling(Variant::COOP, s, caps),
            },
        ]
    }
}

/// `shaders/matmul.wgsl`: the lesson's kernels (naive, tiled, blocked), one module.
pub(crate) fn lesson_module() -> Module {
    Module {
        shader: crate::pipeline::Shader::file(
            "matmul",
            include_str!("../../../shaders/matmul.wgsl"),
        ),
        needs: wgpu::Features::empty(),
    }
}

/// The block of C one workgroup of a blocked kernel computes, as its plan sets it (the shader's
/// `BM` and `BN` overrides): read from the plan in this one place, numbers everywhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    /// Rows of C.
    pub(crate) bm: u32,
    /// Columns of C.
    pub(crate) bn: u32,
}

impl Block {
    /// The block `plan` chose.
    pub(crate) fn of(plan: &Plan) -> Block {
        Block {
            bm: plan.constant("BM"),
            bn: plan.constant("BN"),
        }
    }

    /// Elements a product of `s` in these blocks loads from global memory: each block reads
    /// its BM rows of A and BN columns of B once (PMPP 4.4: a tile of C reads A and B once per
    /// tile, not per element).
    pub(crate) fn global_loads(self, s: Shape) -> u64 {
        let (m, k, n) = (s.m as u64, s.k as u64, s.n as u64);
        m * k * n.div_ceil(self.bn as u64) + k * n * m.div_ceil(self.bm as u64)
    }
}
