//! Split-K as part of the plan: a launch whose output blocks cannot fill the GPU splits K into
//! slices computed by separate workgroups into partial products, summed afterwards. How many
//! depends on the same residency the planner works out (PMPP 4.7), so the planner decides it,
//! scores the candidate with it, and the launch takes it from the plan.

use super::cdiv;
use serde::Serialize;

/// What a candidate allows splitting: the depth K, the least depth one split may have, the
/// multiple of K every split's depth must be (the kernel's step: two slices of BK for a kernel
/// that runs slices in pairs), and the bytes of one partial product (the whole output in f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SplitK {
    /// The depth to split.
    pub k: u32,
    /// The least depth per split.
    pub min_k: u32,
    /// Every split's depth is a multiple of this (≥ 1).
    pub granule: u32,
    /// Bytes of one partial product.
    pub partial_bytes: u64,
    /// Where the kernel can split its last wave's blocks into heads and tails ([`stream_k`]).
    pub last_wave: Option<LastWave>,
    /// Where the kernel can share out every block's slices evenly ([`even_shares`]).
    pub shares: Option<Sharing>,
}

/// What a kernel that splits its last wave's blocks ([`stream_k`]) tells the planner: the depth
/// of its slices and the bytes of one partial block (f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LastWave {
    /// The depth of a slice of K (BK).
    pub slice: u32,
    /// Bytes of one block's partial product.
    pub block_bytes: u64,
}

/// What a kernel that can share out all its blocks' slices evenly ([`even_shares`]) tells the
/// planner: the depth of the unit a share is counted in, and the bytes of one partial block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Sharing {
    /// The depth of one unit of K (2·BK for the pipelined kernel, which runs slices in pairs).
    pub unit: u32,
    /// Bytes of one block's partial product (f32).
    pub block_bytes: u64,
}

impl SplitK {
    /// The depth of each split and how many there are, for `splits` wanted: each split's depth
    /// rounded up to the granule, so the count the launch runs can be lower than asked (K =
    /// 1284 in slices of 16 asked for 10 splits gets 9 of 144). The plan records both; the
    /// launch takes them from the plan.
    pub fn shares(&self, splits: u32) -> (u32, u32) {
        let g = self.granule.max(1);
        let depth = self.k.div_ceil(splits.max(1)).div_ceil(g) * g;
        (depth.max(g), self.k.div_ceil(depth.max(g)))
    }
}

/// The most splits of K: the sum adds a partial per split for every element of C, and for a
/// small C over a very deep K it outgrows what more splits save, even with the partials summed
/// side by side (BENCHMARKS.md, "Split of K by waves").
pub const MAX_SPLITS: u64 = 512;

/// The number of splits for `groups` output blocks when `slots` workgroups run at once
/// (multiprocessors × workgroups resident on each), counted in waves: with s splits the launch
/// runs ⌈groups·s / slots⌉ waves of workgroups doing 1/s of K each. The fewest splits whose time
/// is within 12% of the best any split count reaches: every split adds its partial product to
/// write and read back, and a launch that nearly fills the GPU gains nothing from two waves of
/// half the work (a launch that fills most of a wave ran far faster unsplit than in three splits:
/// BENCHMARKS.md, "Split of K by waves"). Each split at least
/// `min_k` deep, the partial products within `max_binding` bytes, and at most `MAX_SPLITS`.
/// Only the fill is counted here: where the wave model scores a kernel, which also charges the
/// partial products, the planner takes the fewest splits up to this count that it estimates
/// fastest (`Planner::analyse`).
pub fn split_k_waves(groups: u64, split: SplitK, slots: u64, max_binding: u64) -> u32 {
    let slots = slots.max(1);
    let most = ((split.k / split.min_k.max(1)).max(1) as u64)
        .min((max_binding / split.partial_bytes.max(1)).max(1))
        .min(MAX_SPLITS);
    let waves = |s: u64| cdiv(groups.max(1) * s, slots) as f64 / s as f64;
    let best = (1..=most).map(waves).fold(f64::INFINITY, f64::min);
    (1..=most).find(|&s| waves(s) <= 1.12 * best).unwrap_or(1) as u32
}

/// Stream-K for the last wave: the output blocks from `first` on, which would leave part of the
/// GPU idle as the last wave, are each split in two at slice `per`: a head (slices before `per`)
/// and a tail (the rest), each a workgroup of its own that writes a partial block, summed into C
/// by a second pass. The heads take one multiprocessor each and walk K together, as a whole wave
/// does; the tails, short, fill the multiprocessors the heads leave free, several one after the
/// other on each (the GPU starts each workgroup where one has finished), so that everything
/// finishes about when the heads do. `per` is the least whole share of the last wave's slices per
/// multiprocessor at which the free multiprocessors hold every tail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StreamK {
    /// The first block of the last wave: blocks before it run one workgroup each.
    pub first: u64,
    /// Slices of each head.
    pub per: u32,
}

impl StreamK {
    /// The blocks the last wave splits.
    pub fn blocks(&self, total: u64) -> u64 {
        total - self.first
    }
}

/// The least slices of K a tail may have.
pub const STREAM_K_MIN_SLICES: u32 = 8;

/// What a tail costs beyond its slices, in slices: its prologue (two slices loaded before the
/// first multiply-add) and the store of its partial block.
pub const STREAM_K_TAIL_COST: u32 = 4;

/// Stream-K for `blocks` output blocks of `slices` slices each where `slots` workgroups run at
/// once (multiprocessors × workgroups resident on each; 0 where the multiprocessors are not
/// known): `None` where the blocks are a whole number of waves, fit one wave, or no split of the
/// last wave's blocks finishes it sooner than whole blocks. Heads are even numbers of slices
/// (the pipelined kernel runs them in pairs).
pub fn stream_k(blocks: u64, slots: u64, slices: u32) -> Option<StreamK> {
    if slots == 0 || blocks <= slots || blocks.is_multiple_of(slots) {
        return None;
    }
    let first = blocks / slots * slots;
    let rest = blocks - first;
    let free = slots - rest;
    let ideal = cdiv(rest * slices as u64, slots);
    let mut per = ideal.div_ceil(2) * 2;
    while per + (STREAM_K_MIN_SLICES as u64) <= slices as u64 {
        // Each free multiprocessor runs ⌊per / (tail + its cost)⌋ tails in the time of a head;
        // the last wave ends with the heads where they hold every tail.
        let tail = slices as u64 - per + STREAM_K_TAIL_COST as u64;
        if free * (per / tail) >= rest {
            return Some(StreamK {
                first,
                per: per as u32,
            });
        }
        per += 2;
    }
    None
}

/// Stream-K over the whole launch (Osama et al., "Stream-K: Work-centric Parallel Decomposition
/// for Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023): one workgroup per slot (the
/// multiprocessors times the workgroups each holds), the blocks' units of K laid end to end,
/// block after block, and cut into that many even shares. A workgroup walks its share block after
/// block: a block it covers whole goes straight into C; the piece at either end of its share that
/// covers part of a block goes to a partial block of its own (two at most), and a second pass adds
/// each split block's pieces into C in the order of K. Where the blocks fall short of a whole
/// number of waves, so that the last wave or a split of K leaves multiprocessors idle, every
/// multiprocessor still works to the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EvenShares {
    /// Workgroups in the launch, each with one share.
    pub workgroups: u64,
    /// Units of K in each block (K over [`Sharing::unit`], rounded up).
    pub units: u32,
}

impl EvenShares {
    /// Bytes of the partial blocks: two per workgroup (its share's first and last piece).
    pub fn partial_bytes(&self, block_bytes: u64) -> u64 {
        2 * self.workgroups * block_bytes
    }
}

/// Even shares only where whole blocks make fewer waves than this: shares gained below about two
/// waves and lost at four and more, where the wave model saw a gain at both (BENCHMARKS.md,
/// "Even shares for mid-size products"). A tune's rate trials, at three waves and more
/// (`tune::RATE_WAVES`), so keep their blocks' own form.
pub const SHARES_MAX_WAVES: u64 = 3;

/// The even shares of `blocks` blocks of `units` units of K each among `slots` workgroups
/// running at once: `None` where the slots are not known (0), the blocks make
/// [`SHARES_MAX_WAVES`] waves or more, a share would hold fewer than `min_units` (the pipeline's
/// fill and the partial blocks' traffic outweigh what a shallower share does: the kernel's least
/// split of K), or the units outnumber what the shader counts in 32 bits.
pub fn even_shares(blocks: u64, slots: u64, units: u32, min_units: u32) -> Option<EvenShares> {
    let total = blocks * units as u64;
    if slots == 0
        || blocks >= SHARES_MAX_WAVES * slots
        || units == 0
        || total > u32::MAX as u64
        || total < slots * min_units as u64
    {
        return None;
    }
    Some(EvenShares {
        workgroups: slots,
        units,
    })
}

#[cfg(test)]
mod tests {
    use super::{
        even_shares, split_k_waves, stream_k, EvenShares, SplitK, StreamK, STREAM_K_MIN_SLICES,
        STREAM_K_TAIL_COST,
    };

    const BIG: u64 = 1 << 40;

    fn s(k: u32, partial_bytes: u64) -> SplitK {
        SplitK {
            k,
            min_k: 128,
            granule: 1,
            partial_bytes,
            last_wave: None,
            shares: None,
        }
    }

    #[test]
    fn shares_round_to_the_granule_and_cover_k() {
        let s = SplitK {
            k: 1284,
            min_k: 128,
            granule: 16,
            partial_bytes: 4,
            last_wave: None,
            shares: None,
        };
        // 10 asked: ceil(1284 / 10) = 129, rounded to 144: 9 splits cover 1296 ≥ 1284.
        assert_eq!(s.shares(10), (144, 9));
        assert_eq!(s.shares(1), (1296, 1));
        for want in 1..40 {
            let (depth, n) = s.shares(want);
            assert_eq!(depth % 16, 0);
            assert!(
                n <= want && depth * n >= 1284 && depth * (n - 1) < 1284,
                "{want}"
            );
        }
    }

    #[test]
    fn a_launch_that_nearly_fills_the_gpu_is_not_split() {
        // 2048³ in 128×256 blocks: 128 workgroups on 132 one-workgroup multiprocessors.
        assert_eq!(split_k_waves(128, s(2048, 1 << 24), 132, BIG), 1);
        assert_eq!(split_k_waves(1000, s(4096, 1 << 24), 132, BIG), 1);
    }

    #[test]
    fn a_small_launch_takes_the_fewest_splits_near_the_best_wave_count() {
        // 1000³: 32 blocks; 4 splits make 128 workgroups (one wave), 5 would make two.
        assert_eq!(split_k_waves(32, s(1000, 1 << 22), 132, BIG), 4);
        // 72 blocks: the best is 0.545 of a full-K wave (11 splits); 5 splits come within 12%
        // (0.6), 3 (0.67) and 4 (0.75) do not.
        assert_eq!(split_k_waves(72, s(5000, 1 << 24), 132, BIG), 5);
        // 16 blocks, deep K: 8 splits make 128 workgroups, one wave of an eighth.
        assert_eq!(split_k_waves(16, s(4096, 1 << 21), 132, BIG), 8);
    }

    #[test]
    fn splits_stay_within_the_depth_and_the_memory_bounds() {
        // One block, K of 3 splits' least depth: at most 3 splits.
        assert_eq!(split_k_waves(1, s(384, 4), 132, BIG), 3);
        // Partial products of 1 MiB each within a 2 MiB binding: at most 2.
        assert_eq!(split_k_waves(1, s(1 << 20, 1 << 20), 132, 2 << 20), 2);
        // One small block over a very deep K: never past MAX_SPLITS (the sum of the partials).
        assert!(split_k_waves(1, s(131072, 1 << 14), 1056, BIG) as u64 <= super::MAX_SPLITS);
        // f32 64×65536×64 in 64×64×8 blocks (at least 128 deep), six held on 132
        // multiprocessors: 458 splits, within 12% of one full wave of 512 (whole slices of 16
        // make them 456 of 144).
        assert_eq!(split_k_waves(1, s(65536, 1 << 14), 792, BIG), 458);
    }

    #[test]
    fn stream_k_splits_only_a_partly_filled_last_wave() {
        // 4096³ in 128×256 blocks on the H100: 512 blocks, 132 at once: 3 full waves, then 116
        // blocks of 256 slices. An even share would be 226 slices; the 16 free multiprocessors
        // hold all 116 tails (8 each) from heads of 232, tails of 24 (28 with their cost).
        assert_eq!(
            stream_k(512, 132, 256),
            Some(StreamK {
                first: 396,
                per: 232
            })
        );
        // 8192³: 68 blocks of 512 slices; with fewer than half the multiprocessors free each
        // must hold two tails: heads of 344 (two thirds of the blocks' time).
        assert_eq!(
            stream_k(2048, 132, 512),
            Some(StreamK {
                first: 1980,
                per: 344
            })
        );
        // A last wave of 8 blocks: one tail per free multiprocessor, heads of 130.
        assert_eq!(
            stream_k(140, 132, 256),
            Some(StreamK {
                first: 132,
                per: 130
            })
        );
        // Whole waves, one wave or less, an unknown GPU, blocks too shallow to split: none.
        assert_eq!(stream_k(528, 132, 256), None);
        assert_eq!(stream_k(132, 132, 256), None);
        assert_eq!(stream_k(70, 132, 256), None);
        assert_eq!(stream_k(512, 0, 256), None);
        assert_eq!(stream_k(512, 132, 9), None);
    }

    #[test]
    fn stream_k_heads_and_tails_cover_each_block_and_finish_together() {
        for blocks in 2..300u64 {
            for slots in [1u64, 2, 3, 7, 16, 132] {
                for slices in [2u32, 9, 16, 33, 40, 77, 256] {
                    let Some(sk) = stream_k(blocks, slots, slices) else {
                        continue;
                    };
                    let rest = sk.blocks(blocks);
                    let (per, tail) = (sk.per as u64, slices as u64 - sk.per as u64);
                    assert!(per % 2 == 0 && tail >= STREAM_K_MIN_SLICES as u64);
                    assert!(rest > 0 && rest < slots && sk.first % slots == 0);
                    // The free multiprocessors hold every tail, with its cost, within a head's
                    // time, and the last wave ends sooner than whole blocks would.
                    let cost = tail + STREAM_K_TAIL_COST as u64;
                    assert!((slots - rest) * (per / cost) >= rest);
                    assert!(per < slices as u64);
                }
            }
        }
    }

    #[test]
    fn even_shares_take_one_workgroup_a_slot_below_three_waves_none_shallower_than_the_least_split()
    {
        // 1500³ in 128×256×16 blocks: 72 blocks of 47 units among 132 slots.
        let sh = even_shares(72, 132, 47, 8).unwrap();
        assert_eq!(
            sh,
            EvenShares {
                workgroups: 132,
                units: 47
            }
        );
        assert_eq!(sh.partial_bytes(128 * 256 * 4), 2 * 132 * 131072);
        // 260×64×263 in 64×64×8 blocks: 25 blocks of 4 units, less than one each among 132.
        assert_eq!(even_shares(25, 132, 4, 8), None);
        assert_eq!(even_shares(132, 132, 8, 8).map(|s| s.workgroups), Some(132));
        assert_eq!(even_shares(131, 132, 8, 8), None);
        // 3072³ (288 blocks, 2.2 waves) in shares; 4096³ (512 blocks, 3.9 waves) whole.
        assert_eq!(
            even_shares(288, 132, 96, 8).map(|s| s.workgroups),
            Some(132)
        );
        assert_eq!(even_shares(512, 132, 128, 8), None);
        assert_eq!(
            even_shares(395, 132, 128, 8).map(|s| s.workgroups),
            Some(132)
        );
        assert_eq!(even_shares(396, 132, 128, 8), None);
        // An unknown GPU, no depth, or more units than the shader counts: none.
        assert_eq!(even_shares(72, 0, 47, 8), None);
        assert_eq!(even_shares(72, 132, 0, 0), None);
        assert_eq!(even_shares(1 << 20, 1 << 20, 1 << 13, 8), None);
    }
}
