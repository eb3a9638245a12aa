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
/// small C over a very deep K it outgrows what more splits save. On the H100, f32 64×65536×64
/// in 64×64 blocks: with one invocation summing each element's partials, 10.8 TFLOP/s in 256
/// splits and 8.7 in 456; with 64 invocations summing them side by side (`sum_splits`' lanes),
/// 30.2 µs in 228 splits and 27.1 in 456 (BENCHMARKS.md, 2026-11-25).
pub const MAX_SPLITS: u64 = 512;

/// The number of splits for `groups` output blocks when `slots` workgroups run at once
/// (multiprocessors × workgroups resident on each), counted in waves: with s splits the launch
/// runs ⌈groups·s / slots⌉ waves of workgroups doing 1/s of K each. The fewest splits whose time
/// is within 12% of the best any split count reaches: every split adds its partial product to
/// write and read back, and a launch that nearly fills the GPU gains nothing from two waves of
/// half the work (H100, BENCHMARKS.md: 2048³ f16 in 128×256 blocks, 128 workgroups on 132
/// multiprocessors, ran at 208 TFLOP/s unsplit against 139 in 3 splits). Each split at least
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

#[cfg(test)]
mod tests {
    use super::{split_k_waves, SplitK};

    const BIG: u64 = 1 << 40;

    fn s(k: u32, partial_bytes: u64) -> SplitK {
        SplitK {
            k,
            min_k: 128,
            granule: 1,
            partial_bytes,
        }
    }

    #[test]
    fn shares_round_to_the_granule_and_cover_k() {
        let s = SplitK {
            k: 1284,
            min_k: 128,
            granule: 16,
            partial_bytes: 4,
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
}
