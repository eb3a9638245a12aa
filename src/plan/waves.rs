//! The wave model: how long a launch takes, estimated from the same residency the planner works
//! out (PMPP 4.7), for kernels whose candidates differ in block shape rather than in the work
//! each invocation does. Every pipelined block computes 8×8 outputs per invocation, so their
//! arithmetic per FMA is the same; what separates them is how the launch's workgroups fall onto
//! the multiprocessors:
//!
//! - **Waves.** A multiprocessor holds `r` workgroups at once; a launch of W workgroups on P
//!   multiprocessors runs ⌊W / (P·r)⌋ full waves and a last, partial one in which the busiest
//!   multiprocessor holds ⌈rest / P⌉. A block twice as large as another may leave half the GPU
//!   idle where the smaller fills it.
//! - **Latency hiding** (PMPP 4.6–4.7: a multiprocessor hides a load's latency by running other
//!   warps meanwhile). A multiprocessor running fewer than a kernel's [`Work::hiding`] fraction
//!   of the invocations it can hold slows down, as (resident / that)^0.75. The matrix units'
//!   kernel does a grid of 16×16×16 products per subgroup between its loads, and hides latency
//!   with fewer invocations than the scalar kernel.
//! - **The pipeline's fill.** Each workgroup loads its first slices before its first FMA, so its
//!   depth counts `fill` more.
//! - **A split's partial products**: written by the launch, read and summed by a second pass,
//!   charged at the kernel's FLOP rate over the memory's bandwidth ([`SCALAR_FLOPS_PER_BYTE`],
//!   [`Work::flops_per_byte`]). This term is what lets the model choose the split: the waves rule
//!   proposes how many splits fill the GPU, and the planner takes the fewest up to that count
//!   that the model estimates fastest (BENCHMARKS.md, "Split of K by waves").
//!
//! The reuse a block achieves does not enter: at 8×8 per invocation every candidate already loads
//! little enough that the FMA units, not memory, bind. The estimate is reported as the fraction of
//! the multiprocessors' FMA rate the launch keeps busy.
//!
//! What it leaves out: how fast each block's code runs once the GPU is full (a 128×256 block runs
//! the large squares faster per FMA than a 64×64 one, which no term here sees). The planner
//! multiplies the estimate by each block's rate where `tilekit tune` measured it on a full GPU
//! (`Planner::rates`; BENCHMARKS.md, "Measured rates for the wave model"); where no tune did,
//! each block's rate comes from its reuse ([`Work::rate`]). The constants were fitted on an H100
//! and checked on shapes the fit did not use.

use serde::Serialize;

/// What one workgroup of a candidate computes, for the wave model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Work {
    /// FMAs one workgroup does per unit of depth: its output block, BM·BN.
    pub per_depth: u64,
    /// The depth of K the problem has (a split divides it).
    pub depth: u32,
    /// Depth the workgroup spends filling its pipeline before its first FMA (the slices it loads
    /// ahead: 2·BK, or BK for the pipelined kernel's 512-invocation blocks).
    pub fill: u32,
    /// The FMAs the problem needs, M·N·K: the estimate is the fraction of the time they take.
    pub useful: u64,
    /// What a byte of a split's partial products costs, in FLOPs of this kernel: its FLOP rate
    /// over the memory's bandwidth ([`SCALAR_FLOPS_PER_BYTE`] for the scalar units; the matrix
    /// units' rate is several times theirs, and so is what a byte costs them).
    pub flops_per_byte: u32,
    /// The fraction of the invocations a multiprocessor holds that hides a load's latency
    /// ([`SCALAR_HIDING`] for the scalar units): fewer resident slow the launch down.
    pub hiding: f64,
    /// How fast the block's code runs on a full GPU, relative to the kernel's fastest block, as
    /// far as can be told without timing it: the planner uses this where no tune measured the
    /// kernel's rates (`Planner::rates`). 1.0 where every block does the same work per
    /// invocation.
    pub rate: f64,
}

/// For a kernel on the scalar units, a resident invocation count below this fraction of what a
/// multiprocessor holds hides latency less well (fitted on the H100: 384 of 2048).
pub const SCALAR_HIDING: f64 = 3.0 / 16.0;
/// How fast the slowdown below [`Work::hiding`] grows.
const HIDING_POWER: f64 = 0.75;
/// What a byte of partial product costs in FLOPs of the scalar units: about half the H100's f32
/// rate over its bandwidth (16), as the launch writes its partials while it multiplies and only
/// the sum's pass stands alone. A range of values around it chose alike on the shapes it was
/// fitted on, and much larger ones split some mid-size shapes too finely (BENCHMARKS.md, "Split
/// of K by waves").
pub const SCALAR_FLOPS_PER_BYTE: u32 = 10;

/// One candidate's launch, as the wave model sees it.
#[derive(Clone, Copy, Debug)]
pub struct WaveLaunch {
    /// Multiprocessors on the device.
    pub multiprocessors: u32,
    /// Invocations one multiprocessor holds.
    pub threads_per_mp: u32,
    /// Invocations per workgroup.
    pub invocations: u32,
    /// Workgroups one multiprocessor holds at once (the residency).
    pub resident: u32,
    /// Workgroups the launch runs (output blocks × splits).
    pub workgroups: u64,
    /// Slices of K computed separately (1: no split).
    pub splits: u32,
    /// The depth each split computes (ignored without a split).
    pub k_split: u32,
    /// Bytes of one partial product.
    pub partial_bytes: u64,
}

/// How fast a multiprocessor holding `held` of `launch`'s workgroups runs `work`, relative to one
/// that hides latency fully: (resident invocations / the kernel's hiding fraction)^0.75, at most 1.
fn hiding(work: Work, launch: WaveLaunch, held: u64) -> f64 {
    let resident_invocations = (held * launch.invocations as u64) as f64;
    (resident_invocations / (work.hiding * launch.threads_per_mp as f64))
        .min(1.0)
        .powf(HIDING_POWER)
}

/// The fraction of the multiprocessors' FMA rate `launch` keeps busy on `work` (1.0: every
/// multiprocessor busy on useful FMAs from start to end).
pub fn efficiency(work: Work, launch: WaveLaunch) -> f64 {
    let mps = launch.multiprocessors.max(1) as u64;
    let resident = launch.resident.max(1) as u64;
    let depth = if launch.splits > 1 {
        launch.k_split
    } else {
        work.depth
    };
    // One workgroup's FMAs, its pipeline's fill counted as depth.
    let per_workgroup = work.per_depth as f64 * (depth as f64 + work.fill as f64);
    let hiding = |held: u64| hiding(work, launch, held);
    // Time in FMAs of one multiprocessor: each full wave runs `resident` workgroups side by
    // side; the last one runs as many as its busiest multiprocessor holds.
    let slots = mps * resident;
    let full = launch.workgroups / slots;
    let rest = launch.workgroups % slots;
    let mut time = full as f64 * resident as f64 * per_workgroup / hiding(resident);
    if rest > 0 {
        let held = rest.div_ceil(mps);
        time += held as f64 * per_workgroup / hiding(held);
    }
    if launch.splits > 1 {
        // Written by the launch, read by the sum, which writes the result once.
        let bytes = (2 * launch.splits as u64 + 1) * launch.partial_bytes;
        time += bytes as f64 * work.flops_per_byte as f64 / 2.0 / mps as f64;
    }
    (work.useful as f64 / mps as f64) / time.max(1.0)
}

/// What even shares ([`super::even_shares`]) run at, beside whole blocks and splits of K that do
/// the same work: the model's estimate for them is multiplied by this. With every workgroup at
/// its own point of K, the operands the multiprocessors read at once no longer overlap as a
/// wave's do, so shares ran slower than the model saw where whole blocks nearly fill the GPU;
/// this factor keeps the shares that gained and leaves those that lost (BENCHMARKS.md, "Even
/// shares for mid-size products").
pub const SHARES_RATE: f64 = 0.95;

/// The fraction of the multiprocessors' FMA rate `launch` keeps busy on `work` when its blocks
/// (`launch.workgroups`, in one split) have their units of K shared out evenly among
/// `shares.workgroups`, each piece of a block that a share holds only in part written as a
/// partial block and summed by a second pass. Every multiprocessor works to the end; each piece
/// fills its pipeline anew. Not yet multiplied by [`SHARES_RATE`].
pub fn efficiency_shared(
    work: Work,
    launch: WaveLaunch,
    shares: super::EvenShares,
    sharing: super::Sharing,
) -> f64 {
    let mps = launch.multiprocessors.max(1) as u64;
    let blocks = launch.workgroups.max(1) as f64;
    let w = shares.workgroups.max(1) as f64;
    let depth = blocks * shares.units as f64 * sharing.unit as f64 / w;
    let pieces = 1.0 + blocks / w;
    let per_workgroup = work.per_depth as f64 * (depth + work.fill as f64 * pieces);
    let held = shares
        .workgroups
        .div_ceil(mps)
        .min(launch.resident.max(1) as u64);
    let mut time = held as f64 * per_workgroup / hiding(work, launch, held);
    // The partial blocks written and read back, and C written by the sum.
    let bytes = 2 * shares.partial_bytes(sharing.block_bytes) + launch.partial_bytes;
    time += bytes as f64 * work.flops_per_byte as f64 / 2.0 / mps as f64;
    (work.useful as f64 / mps as f64) / time.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::{efficiency, efficiency_shared, WaveLaunch, Work, SHARES_RATE};
    use crate::plan::{EvenShares, Sharing};

    /// A bm×bn block's work on the scalar units (8×8 per invocation, two slices of 8 ahead) in
    /// an m×k×n product.
    fn scalar_work(bm: u64, bn: u64, k: u32, m: u64, n: u64) -> Work {
        Work {
            per_depth: bm * bn,
            depth: k,
            fill: 16,
            useful: m * n * k as u64,
            flops_per_byte: super::SCALAR_FLOPS_PER_BYTE,
            hiding: super::SCALAR_HIDING,
            rate: 1.0,
        }
    }

    /// The H100 (132 multiprocessors of 2048 invocations) running `workgroups` blocks of
    /// `bm`×`bn` (8×8 per invocation) with `resident` held per multiprocessor, over K.
    fn h100(bm: u64, bn: u64, k: u32, resident: u32, workgroups: u64, m: u64, n: u64) -> f64 {
        efficiency(
            scalar_work(bm, bn, k, m, n),
            WaveLaunch {
                multiprocessors: 132,
                threads_per_mp: 2048,
                invocations: (bm * bn / 64) as u32,
                resident,
                workgroups,
                splits: 1,
                k_split: 0,
                partial_bytes: m * n * 4,
            },
        )
    }

    #[test]
    fn a_launch_that_fills_one_wave_beats_one_that_leaves_a_second_nearly_empty() {
        // 777×1234×2345: 481 blocks of 64×64 (six held) against 133 of 128×128 (two held: the
        // 133rd doubles one multiprocessor's time): the smaller block is the faster.
        let small = h100(64, 64, 1236, 6, 481, 777, 2348);
        let large = h100(128, 128, 1236, 2, 133, 777, 2348);
        assert!(small > 1.3 * large, "{small} vs {large}");
    }

    #[test]
    fn too_few_resident_invocations_slow_a_full_wave() {
        // 4096³: 64×64×16 holds three (192 invocations), 64×64×8 six (384): too few invocations
        // to hide latency, so the shallower block is the faster.
        let three = h100(64, 64, 4096, 3, 4096, 4096, 4096);
        let six = h100(64, 64, 4096, 6, 4096, 4096, 4096);
        assert!(six > 1.3 * three && six <= 1.0, "{six} vs {three}");
    }

    #[test]
    fn efficiency_is_at_most_one_and_falls_with_the_pipelines_fill() {
        let deep = h100(128, 128, 4096, 2, 1024, 4096, 4096);
        let shallow = h100(128, 128, 64, 2, 1024, 4096, 4096);
        assert!(deep <= 1.0 && deep > 0.9, "{deep}");
        assert!(shallow < deep, "{shallow} vs {deep}");
    }

    /// The 128×256×16 block (one a multiprocessor) over `blocks` blocks at m×k×n: in `splits`
    /// splits of K, and in even shares among 132 workgroups (before [`SHARES_RATE`]).
    fn h100_128x256(m: u64, k: u32, n: u64, blocks: u64, splits: u32) -> (f64, f64) {
        let work = scalar_work(128, 256, k, m, n);
        let launch = |workgroups, splits, k_split| WaveLaunch {
            multiprocessors: 132,
            threads_per_mp: 2048,
            invocations: 512,
            resident: 1,
            workgroups,
            splits,
            k_split,
            partial_bytes: m * n * 4,
        };
        let k_split = k.div_ceil(splits).div_ceil(32) * 32;
        let split = efficiency(work, launch(blocks * splits as u64, splits, k_split));
        let shares = EvenShares {
            workgroups: 132,
            units: k.div_ceil(32),
        };
        let sharing = Sharing {
            unit: 32,
            block_bytes: 128 * 256 * 4,
        };
        let shared = efficiency_shared(work, launch(blocks, 1, k), shares, sharing);
        (split, shared)
    }

    #[test]
    fn even_shares_win_where_the_blocks_fall_short_of_whole_waves_and_not_at_full_ones() {
        // 1500³: 72 blocks, in three splits a wave and two thirds: shares are the faster
        // (BENCHMARKS.md, "Even shares for mid-size products").
        let (split, shared) = h100_128x256(1500, 1500, 1500, 72, 3);
        assert!(shared * SHARES_RATE > 1.1 * split, "{shared} vs {split}");
        // 4096³: 512 blocks, 3.9 waves whole: whole blocks are the faster.
        let (whole, shared) = h100_128x256(4096, 4096, 4096, 512, 1);
        assert!(shared * SHARES_RATE < whole, "{shared} vs {whole}");
        assert!(shared <= 1.0, "{shared}");
    }
}
