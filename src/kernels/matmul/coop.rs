//! `coop`: f16 matmul on the matrix units (tensor cores) through WGSL cooperative matrices
//! (wgpu's EXPERIMENTAL_COOPERATIVE_MATRIX). The tiling of lesson 02 one level up: workgroup
//! blocks staged in workgroup memory as f16 (double-buffered, loaded two slices ahead, unmasked
//! except at the end of K), each subgroup holding a grid of 16×16 f32 accumulator fragments, one
//! `coopMultiplyAdd` per fragment per 16-deep step. The operand a ragged K or N misaligns (A for
//! K, B for N) is copied into rows of 4 halves first, or on a skinny product read where it lies
//! ([`super::loads_in_place`]), each vec4 of it from four scalar loads. Shader:
//! `shaders/matmul_coop.wgsl` after `shaders/matmul_support.wgsl`, then the loads of A
//! (`shaders/matmul_coop_a_wide.wgsl` or `_a_ragged.wgsl`) and of B (`_b_wide.wgsl` or
//! `_b_ragged.wgsl`), then the stores (`_c_wide.wgsl`: a vec4 at a time into C or the partial
//! products; `_c_ragged.wgsl`: a C of ragged N in one slice of K, element by element).
//!
//! Where the blocks fall short of whole waves, every block's slices can be laid end to end and
//! shared out evenly among as many workgroups as the GPU holds at once (`coop_stream`, then
//! `stream_fixup` sums the pieces of a block that several shares hold), as the pipelined kernel
//! does; the wave model decides ([`crate::plan::even_shares`]). Shares pay where whole blocks
//! fall well short of whole waves and cost time elsewhere, since the partial blocks take the
//! matrix units' time as much as they save (BENCHMARKS.md, "Even shares for mid-size products").
//!
//! Chosen only when the adapter lists a configuration the shader can use: 16×16×16 with f16
//! inputs and f32 accumulators (naga's WGSL has `coop_mat16x16` and `coop_mat8x8` only), and a
//! fixed subgroup size (the workgroup is a whole number of subgroups). Everywhere else the
//! planner says what is missing, and an f16 product goes to `pipelined-f16`.

use super::frame::Frame;
use super::in_place::InPlace;
use super::source::{Built, Forms, Source};
use super::support::{self, block_reuse, partial_block_steps, round4, PartialBlocks};
use super::{Caps, Kernel, Launch, Operands, Precision, Shape};
use crate::gpu::CoopConfig;
use crate::kernels::{fitting, Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{cdiv, KernelUse, Plan, Planner, Scoring, Sharing, Spec, SplitK, Tiling, Work};
use crate::{Error, Gpu, Result};

/// Rows and columns of C per subgroup (the shader's 2×4 grid of fragments).
pub const WM: u32 = 32;
/// See [`WM`].
pub const WN: u32 = 64;

/// What a byte of a split's partial products costs the matrix units, in FLOPs: their f16 rate
/// over the memory's bandwidth, as this kernel reaches them on a GPU of the H100's class.
const MATRIX_FLOPS_PER_BYTE: u32 = 75;

/// The fraction of a multiprocessor's invocations that hides a load's latency for this kernel:
/// 256 of 2048 on the H100, 8 subgroups, each with a grid of 16×16×16 products between its
/// loads. Fitted on every block timed at 25 f16 shapes: a range around it put the library's
/// choice near the fastest block at every shape, where the scalar kernel's fraction marked
/// every block of 256 invocations down and chose a much slower one (BENCHMARKS.md, "Split of K
/// by waves").
const MATRIX_HIDING: f64 = 1.0 / 8.0;

/// The fragment the shader is written for: `coop_mat16x16`, f16 A and B, f32 accumulators.
pub const FRAGMENT: CoopConfig = CoopConfig {
    m: 16,
    n: 16,
    k: 16,
    ab: "f16",
    cr: "f32",
};

/// The kernel's shader in parts: `matmul_coop.wgsl`, the loads of A and of B (64 bits wide, or a
/// ragged operand read in place in scalars) and the stores of C or of split-K's partials (a vec4
/// at a time, or element by element for a C of ragged N in one slice of K). Of its eight forms,
/// `_ragged_k_c1` (A read in place, B copied, C element by element) is not reached under this
/// kernel's rule ([`InPlace::skinny`] reads both ragged operands in place or neither).
static SOURCE: Source = Source {
    name: "matmul_coop",
    main: include_str!("../../../shaders/matmul_coop.wgsl"),
    a: Forms {
        wide: include_str!("../../../shaders/matmul_coop_a_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_coop_a_ragged.wgsl"),
    },
    b: Forms {
        wide: include_str!("../../../shaders/matmul_coop_b_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_coop_b_ragged.wgsl"),
    },
    c: Some(Forms {
        wide: include_str!("../../../shaders/matmul_coop_c_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_coop_c_ragged.wgsl"),
    }),
    coop: true,
    built: Built::new(),
};

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Params {
    m: u32,
    k: u32,
    n: u32,
    tiles_x: u32,
    tiles: u32,
    k_split: u32,
    splits: u32,
    n_out: u32,
    ld: u32,
    sh_workgroups: u32,
    sh_units: u32,
    _pad: u32,
}

/// The planner's view of the cooperative kernel: BM×BN×BK workgroup blocks of 32×64 per
/// subgroup, for an adapter whose subgroups are `subgroup` invocations wide.
#[derive(Clone, Copy, Debug)]
pub struct CoopTiling {
    /// The problem.
    pub shape: Shape,
    /// The subgroup size.
    pub subgroup: u32,
}

impl CoopTiling {
    /// The tiling for `shape` on an adapter with `caps`, or a typed error naming what the
    /// adapter lacks.
    pub fn new(shape: Shape, caps: &Caps, adapter: &str) -> Result<CoopTiling> {
        let unsupported = |missing: String| Error::Unsupported {
            what: "the cooperative-matrix matmul".into(),
            adapter: adapter.to_string(),
            missing,
        };
        if !caps.coop.contains(&FRAGMENT) {
            let listed = if caps.coop.is_empty() {
                "none".to_string()
            } else {
                caps.coop
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(unsupported(format!(
                "a {FRAGMENT} cooperative-matrix configuration (EXPERIMENTAL_COOPERATIVE_MATRIX; this adapter lists: {listed})"
            )));
        }
        match caps.subgroup_sizes {
            // At least 8: the epilogue holds a fragment's 256 / SG values per invocation in an
            // array of 32 (the shader's `LANE_VALUES_MAX`).
            [lo, hi] if lo == hi && lo >= 8 && 256 % lo == 0 => Ok(CoopTiling {
                shape,
                subgroup: lo,
            }),
            [lo, hi] => Err(unsupported(format!(
                "one fixed subgroup size of at least 8 dividing 256 (this adapter's ranges over {lo}–{hi})"
            ))),
        }
    }
}

/// The blocks the planner chooses among: BM, BN, BK and the shader's GROUP; each is a grid of
/// the shader's 32×64 subgroup tiles (WM×WN), and keeps each operand's loads within its
/// MAX_LOADS (8) per invocation per slice.
///
/// 128×256 needs BK = 16 to fit 48 KiB; 256×128×16 is listed to show the limit: its 16
/// subgroups' epilogue scratch takes it 512 bytes over. 32×512 (8 subgroups in a row) is for an
/// A of few rows, 9 to about 40 (fewer go to gemv): a 128-row block computes four to seven times
/// the rows there are, and 32×512 ran such shapes faster (BENCHMARKS.md, "The small-M kernel").
/// 256×64 and 128×64 (8 and 4 subgroups in a column) are for a C with few columns, where a
/// 128×256 block would mostly overhang.
///
/// The blocks of 64 columns load four slices at once (GROUP = 4): where C has few columns the
/// product is bound by reading A, and A read 128 bytes of a row at a time, not 32 each slice,
/// ran faster. So do 128×128×16, for a C of 65 to 128 columns, and 64×128×16, for an A of 33 to
/// 64 rows, where B is what is read: blocks of 256 and 128 invocations, whose registers have
/// room for two groups in flight. 128×256 loads a slice at a time: two groups of loads in flight
/// would take its 512 invocations past the registers a workgroup of 512 may have, and ran it
/// slower (BENCHMARKS.md, "What holds the f16 kernel").
///
/// The 32×512 block loads in groups too where each split is at least [`DEEP_SLICES`] slices
/// deep ([`group_at`]), its GROUP set at launch from the plan's split.
const BLOCKS: [(u32, u32, u32, u32); 10] = [
    (128, 256, 16, 1),
    (256, 128, 16, 1),
    (256, 64, 16, 4),
    (128, 64, 16, 4),
    (128, 128, 16, 4),
    (64, 128, 16, 4),
    (32, 512, 16, 1),
    (128, 128, 32, 1),
    (64, 128, 32, 1),
    (64, 64, 32, 1),
];

/// Slices per split from which the 32×512 block (an A of few rows, B read once) loads four
/// slices at once as the blocks of 64 columns do: deep splits ran faster in groups, and splits of
/// fewer slices, which groups pad, slower (BENCHMARKS.md, "What holds the f16 kernel").
pub const DEEP_SLICES: u32 = 32;

/// The GROUP a block with the plan's `constants` runs at a split `depth` deep: its own, or 4
/// for the 32×512 block where each split is at least [`DEEP_SLICES`] slices deep.
pub fn group_at(constants: &[(String, f64)], depth: u32) -> u32 {
    let get = |name: &str| {
        constants
            .iter()
            .find(|(k, _)| k == name)
            .map_or(0, |(_, v)| *v as u32)
    };
    let (bm, bn, bk) = (get("BM"), get("BN"), get("BK").max(1));
    if (bm, bn) == (32, 512) && depth / bk >= DEEP_SLICES {
        4
    } else {
        get("GROUP")
    }
}

/// `constants` with GROUP set to `group`.
fn with_group(constants: &[(String, f64)], group: u32) -> Vec<(String, f64)> {
    constants
        .iter()
        .map(|(k, v)| {
            let v = if k == "GROUP" { group as f64 } else { *v };
            (k.clone(), v)
        })
        .collect()
}

impl Tiling for CoopTiling {
    fn kernel(&self) -> &'static str {
        "coop-matmul"
    }

    /// The wave model, with each block's measured rate: time is the whole blocks' work (what
    /// overhangs C included) over how fast the block runs on a full GPU. A block whose columns
    /// mostly lie outside C then loses to a narrower one by its overhang, and a narrow block
    /// wins only where that is larger than what its rate loses.
    fn scoring(&self) -> Scoring {
        Scoring::Waves
    }

    fn sizes(&self) -> Vec<(&'static str, u64)> {
        let s = self.shape;
        vec![("m", s.m as u64), ("k", s.k as u64), ("n", s.n as u64)]
    }

    fn candidates(&self) -> Vec<Spec> {
        let sg = self.subgroup;
        // The largest reuse of any block: the unmeasured rates are relative to it.
        let top = BLOCKS
            .iter()
            .map(|&(bm, bn, _, _)| block_reuse(bm as f64, bn as f64))
            .fold(0.0, f64::max);
        BLOCKS
            .into_iter()
            .map(|(bm, bn, bk, group)| {
                let subgroups = (bm / WM) * (bn / WN);
                let invocations = subgroups * sg;
                let per_frag = 256 / sg; // elements of a 16×16 fragment per invocation
                let loads = cdiv((bm * bk / 4) as u64, invocations as u64) as u32
                    + cdiv((bk * bn / 4) as u64, invocations as u64) as u32;
                Spec {
                    label: format!("{bm}x{bn}x{bk}"),
                    constants: vec![
                        ("BM", bm),
                        ("BN", bn),
                        ("BK", bk),
                        ("SG", sg),
                        ("GROUP", group),
                    ],
                    workgroup_size: [invocations, 1, 1],
                    usage: KernelUse {
                        invocations,
                        // Two f16 buffers of each padded slice, and a 16×16 f32 scratch per
                        // subgroup (the epilogue): the shader's three declarations.
                        workgroup_bytes: 2 * (bm * (bk + 8) + bk * (bn + 8)) * 2 + subgroups * 1024,
                        // 8 f32 accumulator fragments, 6 f16 operand fragments (packed in pairs),
                        // two slices (or two groups of slices) of prefetched vec4<f16>s in flight
                        // (2 registers each), the loads' origins (one each), addressing.
                        registers: 8 * per_frag
                            + 6 * per_frag / 2
                            + 2 * group * 2 * loads
                            + loads
                            + 24,
                    },
                    // The loads a block saves (PMPP 4.2), counted on the part of it inside C, times
                    // the square root of the fraction of the block inside C: what ranks the blocks
                    // where residency does not apply (a profile that is not a GPU's); on a GPU the
                    // wave model does (`scoring`), which on a GPU chose better blocks than any charge
                    // of the overhang did (BENCHMARKS.md, "Split of K by waves").
                    reuse: {
                        let em = bm.min(self.shape.m) as f64;
                        let en = bn.min(round4(self.shape.n)) as f64;
                        let inside = em * en / (bm * bn) as f64;
                        block_reuse(em, en) * inside.sqrt()
                    },
                    workgroups: cdiv(self.shape.m as u64, bm as u64)
                        * cdiv(round4(self.shape.n) as u64, bn as u64),
                    // Split K when the blocks cannot fill the GPU; each split at least 8 slices.
                    // A 128×256 block fills a multiprocessor on its own (its registers), so 128 of
                    // them on 132 multiprocessors are not split at all, and a few of them over a deep
                    // K are split until they fill it (BENCHMARKS.md, "Split of K by waves").
                    split_k: Some(SplitK {
                        k: round4(self.shape.k),
                        min_k: 8 * bk,
                        granule: bk,
                        partial_bytes: self.shape.m as u64 * round4(self.shape.n) as u64 * 4,
                        last_wave: None,
                        // Even shares, a slice a unit, for the blocks that load a slice at a time
                        // (`coop_stream`).
                        shares: (group == 1).then_some(Sharing {
                            unit: bk,
                            block_bytes: bm as u64 * bn as u64 * 4,
                        }),
                    }),
                    // The whole block's multiply-adds, the part overhanging C included: the matrix
                    // units do a fragment's whole 16×16×16 whatever part of it is inside C. A
                    // block loads two slices (or two groups of four) before its first product.
                    work: Some(Work {
                        per_depth: bm as u64 * bn as u64,
                        depth: round4(self.shape.k),
                        fill: 2 * group * bk,
                        useful: self.shape.m as u64 * self.shape.k as u64 * self.shape.n as u64,
                        flops_per_byte: MATRIX_FLOPS_PER_BYTE,
                        hiding: MATRIX_HIDING,
                        // Unmeasured, a block's speed on a full GPU is taken to follow its reuse (a
                        // fragment's loads and staging per multiply-add). The H100's measured rates
                        // (hopper.json) are within 0.06 of it for most blocks (1.0 for 128×256,
                        // 0.69 for 128×128×32 against 0.75, 0.73 for 128×128×16 against 0.75, 0.55
                        // for 256×64 against 0.60, 0.36 for 64×64×32 against 0.38), 0.12 below it
                        // for 64×128×32 (0.38 against 0.50), and the narrow blocks that load in
                        // groups run faster than their reuse says (0.64 for 128×64 against 0.50,
                        // 0.71 for 64×128×16 against 0.50, 0.58 for 32×512 against 0.35): on a GPU
                        // nobody tuned those are chosen less often than they should be
                        // (BENCHMARKS.md, "The cooperative kernel's epilogue").
                        rate: block_reuse(bm as f64, bn as f64) / top,
                    }),
                }
            })
            .collect()
    }
}

/// The cooperative-matrix variant.
pub struct Coop;

impl Kernel for Coop {
    fn name(&self) -> &'static str {
        "coop"
    }

    fn about(&self) -> &'static str {
        "f16 on the matrix units (cooperative matrices, 16x16x16 f16->f32): blocks staged in workgroup memory, a grid of fragments per subgroup; a ragged K or N copied into rows of 4, or read in place on skinny products (needs EXPERIMENTAL_COOPERATIVE_MATRIX)"
    }

    fn precision(&self) -> Precision {
        Precision::F16
    }

    fn needs(&self) -> wgpu::Features {
        wgpu::Features::SHADER_F16 | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
    }

    fn tiling(&self, shape: Shape, caps: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(Some(Box::new(CoopTiling::new(shape, caps, &caps.adapter)?)))
    }

    fn modules(&self) -> Vec<Module> {
        SOURCE.modules(Precision::F16)
    }

    fn pipelines(&self, planner: &Planner, caps: &Caps) -> Vec<PipelineUse> {
        let shape = Shape {
            m: 4096,
            k: 4096,
            n: 4096,
        };
        let Ok(t) = CoopTiling::new(shape, caps, "") else {
            return Vec::new();
        };
        // Every fitting block with the GROUP of its plan, and the 32×512 block's grouped loop.
        let mut configs = fitting(planner, &t);
        let deep: Vec<_> = configs
            .iter()
            .map(|c| with_group(c, group_at(c, u32::MAX)))
            .filter(|c| !configs.contains(c))
            .collect();
        configs.extend(deep);
        let mut all = SOURCE.pipelines(Precision::F16, "coop", &configs);
        // Even shares' two entries at every block that loads a slice at a time, in every form.
        for types in support::types_of(Precision::F16) {
            for form in SOURCE.forms() {
                let m = SOURCE.module(*types, form);
                for c in configs.iter().filter(|c| group_at(c, 0) == 1) {
                    for entry in ["coop_stream", "stream_fixup"] {
                        all.push(PipelineUse::new(&m, entry, c.clone()));
                    }
                }
            }
        }
        all
    }

    fn launch<'a>(
        &'a self,
        gpu: &'a Gpu,
        io: Operands<'a>,
        shape: Shape,
        plan: Option<&'a Plan>,
    ) -> LocalFuture<'a, Result<Launch>> {
        Box::pin(async move {
            let plan = plan.expect("the cooperative kernel has a plan");
            let super::Block { bm, bn } = super::Block::of(plan);
            let Shape { m, k, n } = shape;
            let n4 = round4(n);
            // Ragged K or N: the ragged operand (A for K, B for N) copied into rows of 4 halves
            // (zeros outside, fig 4.20) for 64-bit loads, or on a skinny product read where it
            // lies (`loads_in_place`, whose figures include this kernel's).
            let mut frame = Frame::new(gpu, &SOURCE, io, shape, InPlace::skinny(shape)).await?;
            let tiles_x = n4.div_ceil(bn);
            let tiles = tiles_x * m.div_ceil(bm);
            // The plan's split of K (by waves of the workgroups resident at once), each split a
            // whole number of BK slices.
            let (splits, k_split) = (plan.choice().splits, plan.choice().k_split);
            // Or every block's slices shared out evenly (the blocks that load a slice at a time).
            let shares = plan.choice().shares;
            // One slice stores C directly (the epilogue checks bounds, so no padded columns; a
            // ragged N element by element); several write f32 partials with rows of n4 for
            // `sum_splits`, a vec4 at a time.
            let ld = if splits == 1 { n } else { n4 };
            let params = gpu.uniform(&Params {
                m,
                k,
                n,
                tiles_x,
                tiles,
                k_split,
                splits,
                n_out: n,
                ld,
                sh_workgroups: shares.map_or(0, |sh| sh.workgroups as u32),
                sh_units: shares.map_or(0, |sh| sh.units),
                _pad: 0,
            });
            let (a, b, c, main) = frame.output(gpu, splits, ld).await?;
            let io = [(0, a), (1, b), (2, c), (3, params.bind())];
            let Some(sh) = shares else {
                // The loop: the block's own, or in groups where the 32×512 block's splits are
                // deep.
                let depth = if splits > 1 { k_split } else { k };
                let constants = with_group(&plan.constants(), group_at(&plan.constants(), depth));
                let step = gpu
                    .planned_step_with(&main, "coop", plan, &constants, &io)
                    .await?;
                return frame.finish(gpu, step, plan).await;
            };
            // Even shares: one launch that stores the blocks its shares hold whole into C and
            // two partial blocks per share, then their sum into C.
            let pb = PartialBlocks {
                entry: "coop_stream",
                fixup: "stream_fixup",
                blocks: 2 * sh.workgroups,
                summed: tiles as u64,
            };
            let (steps, parts) = partial_block_steps(gpu, &main, plan, io, pb).await?;
            frame
                .finish_steps(gpu, steps, plan, Some((" even shares", Box::new(parts))))
                .await
        })
    }

    fn global_loads(&self, s: Shape, plan: Option<&Plan>) -> u64 {
        plan.map_or(super::Block { bm: 128, bn: 128 }, super::Block::of)
            .global_loads(s)
    }
}
