//! `pipelined`: the blocked kernel made fast (double-buffered workgroup memory with one barrier
//! per slice, register prefetch two slices ahead, 128-bit workgroup-memory reads, 8×8 per
//! invocation), with split-K when the output blocks cannot fill the GPU. Where every row of A
//! and B is a multiple of 4 elements its global loads are 128 bits wide. Where K or N is ragged,
//! the ragged operand (A for K, B for N) is copied into rows of 4 first, or, where few blocks
//! read it or the product is skinny, so that the copy would cost more than it saves
//! (`InPlace::by_reuse` in `support.rs`, [`super::IN_PLACE_REUSE`]), each vec4 of it is
//! gathered from four scalar loads. Shader: `shaders/matmul_pipelined.wgsl` after
//! `shaders/matmul_support.wgsl`, then the loads of A (`shaders/matmul_pipelined_a_wide.wgsl` or
//! `_a_ragged.wgsl`) and of B (`_b_wide.wgsl` or `_b_ragged.wgsl`), and the stores of the output
//! (`_c_wide.wgsl`: vec4s into C or into split-K partials; `_c_ragged.wgsl`: where one slice of K
//! writes a C whose N is ragged, straight into C, in order through workgroup memory where C is
//! large; no second pass).
//! Where one split's blocks leave the last wave partly filled, that wave's blocks are each split
//! into a head and a tail of K ([`crate::plan::stream_k`], the shader's `pipelined_sk` and
//! `sk_fixup`), so that the multiprocessors finish together. Where the wave model estimates it
//! faster than whole blocks or a split of K, every block's slices are laid end to end and shared
//! out evenly among as many workgroups as the GPU holds at once ([`crate::plan::even_shares`],
//! the shader's `pipelined_stream` and `stream_fixup`).
//!
//! `pipelined-f16` is the same kernel reading f16 operands (half the bytes from global memory)
//! and widening them to f32 as they are loaded: the f16 kernel on the scalar units, for adapters
//! with SHADER_F16 and no cooperative matrices.

use super::frame::Frame;
use super::in_place::InPlace;
use super::source::{Built, Form, Forms, Source};
use super::support::{self, partial_block_steps, round4, PartialBlocks};
use super::{Caps, Kernel, Launch, Operands, Precision, Shape};
use crate::kernels::{fitting, Module, PipelineUse};
use crate::launch::LocalFuture;
use crate::plan::{
    cdiv, KernelUse, LastWave, Plan, Planner, Scoring, Sharing, Spec, SplitK, Tiling, Work,
    SCALAR_FLOPS_PER_BYTE, SCALAR_HIDING,
};
use crate::{Gpu, Result};

/// The kernel's shader in parts: `matmul_pipelined.wgsl`, the loads of A and of B (128 bits wide,
/// or a ragged operand read in place in scalars) and the stores of its output (vec4s into C or
/// split-K's partials, or, where one slice of K writes a C of ragged N, straight into C, in order
/// through workgroup memory).
static SOURCE: Source = Source {
    name: "matmul_pipelined",
    main: include_str!("../../../shaders/matmul_pipelined.wgsl"),
    a: Forms {
        wide: include_str!("../../../shaders/matmul_pipelined_a_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_pipelined_a_ragged.wgsl"),
    },
    b: Forms {
        wide: include_str!("../../../shaders/matmul_pipelined_b_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_pipelined_b_ragged.wgsl"),
    },
    c: Some(Forms {
        wide: include_str!("../../../shaders/matmul_pipelined_c_wide.wgsl"),
        ragged: include_str!("../../../shaders/matmul_pipelined_c_ragged.wgsl"),
    }),
    coop: false,
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
    ld: u32,
    lda: u32,
    sk_first: u32,
    sk_per: u32,
    sh_workgroups: u32,
    sh_units: u32,
    _pad: [u32; 3],
}

/// The planner's view of the pipelined kernel: BM×BN×BK blocks, 8×8 per invocation, two
/// buffers of each slice in workgroup memory.
#[derive(Clone, Copy, Debug)]
pub struct PipelinedTiling {
    /// The problem.
    pub shape: Shape,
}

impl Tiling for PipelinedTiling {
    fn kernel(&self) -> &'static str {
        "pipelined-matmul"
    }

    fn sizes(&self) -> Vec<(&'static str, u64)> {
        let s = self.shape;
        vec![("m", s.m as u64), ("k", s.k as u64), ("n", s.n as u64)]
    }

    fn scoring(&self) -> Scoring {
        Scoring::Waves
    }

    fn candidates(&self) -> Vec<Spec> {
        // BK <= BM/4 and BN/4: at most MAX_LOADS = 4 vec4 loads per operand per invocation.
        // Every block computes 8×8 per invocation, so they are ranked by the wave model
        // (`Scoring::Waves`): how their workgroups fall onto the multiprocessors, not their
        // reuse, which ranked a slower block first (BENCHMARKS.md, "Split of K by waves").
        // 128×256 (512 invocations, 16 subgroups, one workgroup per multiprocessor) runs the
        // large squares faster than 128×128×16: the same 8×8 per invocation with twice the
        // subgroups to hide each other's latency (BENCHMARKS.md, "The f32 kernel is held by its
        // reads of workgroup memory").
        // 256×128×8 is for a C of 65 to 128 columns and many rows, which a 128×256 block
        // computes twice over; at the squares it runs behind 128×256×16, and 256×128×16 was
        // never the fastest, so it is not listed. It stands before the 128×256 blocks because
        // the planner takes the last of equal scores: without measured rates the two shapes of
        // block tie wherever both fill the GPU, and 128×256 is the faster there.
        // 32×128×8 is for an A of 17 to about 64 rows, which a 64-row block computes twice over
        // where it has 32 (the wave model counts the whole block's work); it ran those shapes
        // faster than the small-M kernel and 64×64×8 (BENCHMARKS.md, "The small-M kernel").
        [
            (128u32, 128u32, 8u32),
            (128, 128, 16),
            (128, 64, 16),
            (64, 128, 16),
            (64, 64, 16),
            (64, 64, 8),
            (256, 128, 8),
            (128, 256, 16),
            (128, 256, 8),
            (32, 128, 8),
        ]
        .into_iter()
        .map(|(bm, bn, bk)| {
            // The store of a C of ragged N stages BM/8 rows of BN in one of the two slice
            // buffers, B's (2·BK·BN) where BM <= 16·BK, else A's (`_c_ragged.wgsl`).
            debug_assert!(
                bm.min(bn) <= 16 * bk,
                "{bm}x{bn}x{bk}: no slice buffer stages C"
            );
            let (wx, wy) = (bn / 8, bm / 8);
            let loads = 16 * bk / bn + 16 * bk / bm;
            // How the block is fed (the shader's AHEAD and EARLY), from its register budget. A
            // workgroup of 512 invocations (the 128×256 blocks) leaves each 128 registers:
            // fetching one slice ahead instead of two frees what reading each k step's operands
            // a step early takes, and ran the squares faster at both BK; with more registers to spare,
            // the smaller blocks ran no faster with either, and some slower (BENCHMARKS.md, "The
            // f32 kernel is held by its reads of workgroup memory").
            let (ahead, early) = if wx * wy >= 512 {
                (1, (bk >= 16) as u32)
            } else {
                (2, 0)
            };
            Spec {
                label: format!("{bm}x{bn}x{bk}"),
                constants: vec![
                    ("BM", bm),
                    ("BN", bn),
                    ("BK", bk),
                    ("AHEAD", ahead),
                    ("EARLY", early),
                ],
                workgroup_size: [wx, wy, 1],
                usage: KernelUse {
                    invocations: wx * wy,
                    // Two buffers of the A and B slices, f32.
                    workgroup_bytes: 2 * (bk * bm + bk * bn) * 4,
                    // 64 accumulators, 16 operands, three sets of prefetched vec4s (two
                    // slices ahead and the one being stored), addressing; at BK = 16 the
                    // driver keeps more of the unrolled steps' operands live (+40). Fitted to
                    // what NVIDIA's driver allocated on the H100 (`scripts/device/stats`): the
                    // same residency for each tile as the driver's counts. One set of prefetched
                    // vec4s fewer held one workgroup too many per multiprocessor, and the split
                    // of K sized for it ran a second wave (BENCHMARKS.md, "Split of K by
                    // waves").
                    // The 128×256 blocks' 512 invocations get what one workgroup leaves them
                    // of the register file (the residency's cap: 128 on the H100, which the
                    // driver allocated for both).
                    // A 32-row block's four loads of A per slice took 37 more than this (201).
                    registers: 64
                        + 16
                        + 3 * 4 * loads
                        + 24
                        + if bk >= 16 || bm == 32 { 40 } else { 0 },
                },
                reuse: {
                    let em = bm.min(self.shape.m) as f64;
                    let en = bn.min(round4(self.shape.n)) as f64;
                    // Reuse on the part of the block inside C, times the fraction inside.
                    support::block_reuse(em, en) * (em * en) / (bm * bn) as f64
                },
                workgroups: cdiv(self.shape.m as u64, bm as u64)
                    * cdiv(round4(self.shape.n) as u64, bn as u64),
                // Split K when the blocks cannot fill the GPU; each split at least 16 slices.
                // Slices run in pairs (two register sets), so a split's depth is 2·BK-granular.
                split_k: Some(SplitK {
                    k: round4(self.shape.k),
                    min_k: 16 * bk,
                    granule: 2 * bk,
                    partial_bytes: self.shape.m as u64 * round4(self.shape.n) as u64 * 4,
                    // Stream-K where K and N are multiples of 4: with A and B copied and C
                    // stored in scalars (4095³) it ran slower than whole blocks.
                    // Not for 256×128×8: its stream-K entry (`pipelined_sk`, which the whole
                    // launch runs) ran slower than its whole blocks even after its stores were
                    // rewritten to end a spill, and a tune then rated the block lower and chose a
                    // slower one at 8192×8192×128 (BENCHMARKS.md, "The last wave in heads and
                    // tails (stream-K)").
                    last_wave: (self.shape.k.is_multiple_of(4)
                        && self.shape.n.is_multiple_of(4)
                        && (bm, bn, bk) != (256, 128, 8))
                        .then_some(LastWave {
                            slice: bk,
                            block_bytes: bm as u64 * bn as u64 * 4,
                        }),
                    // Even shares at any K and N (the store into C takes a ragged N): mid-size
                    // products ran faster so than at their best split (BENCHMARKS.md, "Even
                    // shares for mid-size products"), and the wave model takes them only where
                    // it estimates a gain (`SHARES_RATE`). Not for the 512-invocation blocks of
                    // BK = 8: NVIDIA's driver gave 128×256×8's shares entry (`pipelined_stream`)
                    // more workgroup memory than its plain one (spilled registers, most likely),
                    // and 256×128×8 ran its last wave slower split even without a spill
                    // (above); neither was timed in shares.
                    shares: (bk >= 16 || bm * bn < 128 * 256).then_some(Sharing {
                        unit: 2 * bk,
                        block_bytes: bm as u64 * bn as u64 * 4,
                    }),
                }),
                // Every block does 8×8 per invocation; the wave model ranks them by how their
                // workgroups fill the GPU. The pipeline loads AHEAD slices before its first FMA.
                work: Some(Work {
                    per_depth: bm as u64 * bn as u64,
                    depth: round4(self.shape.k),
                    fill: ahead * bk,
                    useful: self.shape.m as u64 * self.shape.k as u64 * self.shape.n as u64,
                    flops_per_byte: SCALAR_FLOPS_PER_BYTE,
                    hiding: SCALAR_HIDING,
                    rate: 1.0,
                }),
            }
        })
        .collect()
    }
}

/// The pipelined variant, for f32 or f16 operands.
pub struct Pipelined(pub Precision);

/// f32 operands.
pub static PIPELINED: Pipelined = Pipelined(Precision::F32);
/// f16 operands, f32 arithmetic.
pub static PIPELINED_F16: Pipelined = Pipelined(Precision::F16);

impl Kernel for Pipelined {
    fn name(&self) -> &'static str {
        match self.0 {
            Precision::F32 => "pipelined",
            Precision::F16 => "pipelined-f16",
        }
    }

    fn about(&self) -> &'static str {
        match self.0 {
            Precision::F32 => "blocked with double-buffered workgroup memory, register prefetch and vec4 reads; split-K when blocks cannot fill the GPU; a ragged K or N copied into rows of 4, or read in place on skinny products",
            Precision::F16 => "pipelined reading f16 operands, f32 arithmetic on the scalar units (needs SHADER_F16; the f16 kernel where there are no cooperative matrices)",
        }
    }

    fn precision(&self) -> Precision {
        self.0
    }

    fn needs(&self) -> wgpu::Features {
        support::types_of(self.0)[0].needs()
    }

    fn tiling(&self, shape: Shape, _: &Caps) -> Result<Option<Box<dyn Tiling>>> {
        Ok(Some(Box::new(PipelinedTiling { shape })))
    }

    fn modules(&self) -> Vec<Module> {
        SOURCE.modules(self.0)
    }

    fn pipelines(&self, planner: &Planner, _: &Caps) -> Vec<PipelineUse> {
        let t = PipelinedTiling {
            shape: Shape {
                m: 1024,
                k: 1024,
                n: 1024,
            },
        };
        let configs = fitting(planner, &t);
        let mut all = SOURCE.pipelines(self.0, "pipelined", &configs);
        // Stream-K's two entries at every block (K and N multiples of 4 only).
        for types in support::types_of(self.0) {
            let m = SOURCE.module(*types, Form::WIDE);
            for c in &configs {
                for entry in [
                    "pipelined_sk",
                    "sk_fixup",
                    "pipelined_stream",
                    "stream_fixup",
                ] {
                    all.push(PipelineUse::new(&m, entry, c.clone()));
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
            let plan = plan.expect("the pipelined kernel has a plan");
            let super::Block { bm, bn } = super::Block::of(plan);
            let Shape { m, k, n } = shape;
            let n4 = round4(n);
            // A ragged K or N: the ragged operand copied into rows of 4 (zeros outside, fig
            // 4.20), or loaded where it lies where few blocks read it or the product is skinny
            // (`InPlace::by_reuse`), each operand wide where its rows allow. Either way the
            // kernel reads K and N as they are.
            let reads = InPlace::by_reuse(shape, bm, bn);
            let mut frame = Frame::new(gpu, &SOURCE, io, shape, reads).await?;
            let (lda, ldb) = frame.row_lengths();
            let tiles_x = n4.div_ceil(bn);
            let tiles = tiles_x * m.div_ceil(bm);
            // The plan's split of K (by waves of the workgroups resident at once), each split an
            // even number of slices: the shader runs slices in pairs (the granule is 2·BK).
            let (splits, k_split) = (plan.choice().splits, plan.choice().k_split);
            // The output's rows: C's own where one slice writes it (a ragged N stored in
            // scalars), else rows of 4 for vec4 stores into the partials.
            let ld = if splits == 1 { n } else { n4 };
            // Where the plan splits the last wave's blocks into heads and tails (stream-K), or
            // shares every block's slices out evenly.
            let stream = plan.choice().stream_k;
            let shares = plan.choice().shares;
            let params = gpu.uniform(&Params {
                m,
                k,
                n: ldb,
                tiles_x,
                tiles,
                k_split,
                splits,
                ld,
                lda,
                sk_first: stream.map_or(0, |sk| sk.first as u32),
                sk_per: stream.map_or(0, |sk| sk.per),
                sh_workgroups: shares.map_or(0, |sh| sh.workgroups as u32),
                sh_units: shares.map_or(0, |sh| sh.units),
                _pad: [0; 3],
            });
            let (a, b, c, main) = frame.output(gpu, splits, ld).await?;
            // Stream-K in either form: one launch that writes partial blocks (two per share, or
            // a head's and a tail's per block of the last wave), then their sum into C.
            let io = [(0, a), (1, b), (2, c), (3, params.bind())];
            let (pb, what) = match (shares, stream) {
                (Some(sh), _) => (
                    PartialBlocks {
                        entry: "pipelined_stream",
                        fixup: "stream_fixup",
                        blocks: 2 * sh.workgroups,
                        summed: tiles as u64,
                    },
                    " even shares",
                ),
                (None, Some(sk)) => {
                    let rest = sk.blocks(tiles as u64);
                    let pb = PartialBlocks {
                        entry: "pipelined_sk",
                        fixup: "sk_fixup",
                        blocks: 2 * rest,
                        summed: rest,
                    };
                    (pb, " stream-K")
                }
                (None, None) => {
                    let step = gpu.planned_step(&main, "pipelined", plan, &io).await?;
                    return frame.finish(gpu, step, plan).await;
                }
            };
            let (steps, parts) = partial_block_steps(gpu, &main, plan, io, pb).await?;
            frame
                .finish_steps(gpu, steps, plan, Some((what, Box::new(parts))))
                .await
        })
    }

    fn global_loads(&self, s: Shape, plan: Option<&Plan>) -> u64 {
        plan.map_or(super::Block { bm: 128, bn: 128 }, super::Block::of)
            .global_loads(s)
    }
}
