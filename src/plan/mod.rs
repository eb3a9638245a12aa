//! The planner: "memory as a limiting factor to parallelism" (PMPP 4.7) as pure Rust.
//!
//! A kernel family describes what it can launch as a [`Tiling`]: for a problem size, the
//! candidate tiles and what one workgroup of each needs (invocations, workgroup bytes, estimated
//! registers). The planner refuses candidates the adapter's [`Limits`] cannot hold (wgpu 30 does
//! not check workgroup storage itself: docs/wgpu-notes.md 1), works out how many workgroups a
//! multiprocessor holds under each resource of the [`DeviceProfile`], ranks the rest and says why.
//! It never talks to a device, and knows no family: the candidates live beside their shaders in
//! `src/kernels/<family>/`.

use crate::dispatch::Dispatch;
use crate::limits::{DeviceProfile, Limits};
use crate::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

mod choice;
mod residency;
mod scoring;
mod split;
mod tile;
mod waves;
pub use choice::{workgroups, Candidate, ChosenBy, Plan};
pub use residency::{max_registers_for_full_residency, residency, KernelUse, Residency, Resource};
pub use split::{
    even_shares, split_k_waves, stream_k, EvenShares, LastWave, Sharing, SplitK, StreamK,
    SHARES_MAX_WAVES,
};
pub use tile::Tile;
pub use waves::{
    efficiency, efficiency_shared, WaveLaunch, Work, SCALAR_FLOPS_PER_BYTE, SCALAR_HIDING,
    SHARES_RATE,
};

/// How a [`Tiling`]'s candidates are ranked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// Global-load reduction ([`Spec::reuse`]), discounted below 25% occupancy and when the
    /// launch has fewer workgroups than the device has multiprocessors (tiles).
    Reuse,
    /// The highest occupancy, then the workgroup size nearest 256 invocations (the lessons'
    /// block size): kernels whose tile is only a workgroup size (reduce, reverse).
    Occupancy,
    /// The wave model's estimate ([`efficiency`]): the fraction of the multiprocessors' FMA
    /// rate the launch keeps busy, from its waves of resident workgroups, the invocations each
    /// multiprocessor holds, its pipeline's fill and a split's partial products. For kernels
    /// whose candidates do the same work per invocation (the pipelined matmul); each candidate
    /// gives its [`Spec::work`]. Where the candidate's rate was measured ([`Planner::rates`]),
    /// the estimate is multiplied by it: the model knows how a launch fills the GPU, not how fast
    /// each block's code runs once it does. A CPU adapter, where residency does not apply, ranks
    /// by reuse.
    Waves,
}

/// One candidate a kernel family offers the planner.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// E.g. `TILE=16` or `128x128x16/8x8`.
    pub label: String,
    /// Override constants to set in the shader, by name.
    pub constants: Vec<(&'static str, u32)>,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// What one workgroup needs (counted from the shader's declarations).
    pub usage: KernelUse,
    /// How many times fewer global loads than the naive kernel.
    pub reuse: f64,
    /// Workgroups the launch needs for the problem (its output blocks, before any split of K).
    pub workgroups: u64,
    /// Whether the launch may split K, and how ([`split_k_waves`] proposes how many times; where
    /// the wave model scores the kernel, the planner may take fewer).
    pub split_k: Option<SplitK>,
    /// What one workgroup computes, for [`Scoring::Waves`] (`None` for other scorings).
    pub work: Option<Work>,
}

/// A kernel the planner sizes: its name, problem size and candidate tiles. Each kernel family
/// implements this next to the shader whose declarations its [`KernelUse`] counts.
pub trait Tiling {
    /// Short name used on the command line, e.g. `tiled-matmul`.
    fn kernel(&self) -> &'static str;
    /// The problem size, named (e.g. `[("m", 1000), ("k", 1000), ("n", 1000)]`).
    fn sizes(&self) -> Vec<(&'static str, u64)>;
    /// Every candidate tile, in the order the table shows them.
    fn candidates(&self) -> Vec<Spec>;
    /// How candidates are ranked.
    fn scoring(&self) -> Scoring {
        Scoring::Reuse
    }
}

/// A kernel with nothing to choose: one workgroup shape, fixed by its lesson (the histogram's
/// 256 bins, the copy's grid-stride loop, the carved pool of N records). The planner still
/// says whether the adapter holds it and what limits its residency, as for any kernel.
#[derive(Clone, Debug)]
pub struct FixedTiling {
    /// Name on the command line (`histogram`).
    pub kernel: &'static str,
    /// The problem size, named.
    pub sizes: Vec<(&'static str, u64)>,
    /// The one candidate.
    pub spec: Spec,
}

impl Tiling for FixedTiling {
    fn kernel(&self) -> &'static str {
        self.kernel
    }
    fn sizes(&self) -> Vec<(&'static str, u64)> {
        self.sizes.clone()
    }
    fn candidates(&self) -> Vec<Spec> {
        vec![self.spec.clone()]
    }
    fn scoring(&self) -> Scoring {
        Scoring::Occupancy
    }
}

/// Measured rates of a kernel's candidates, by label: how fast each runs per FMA when the GPU
/// is full, relative to the fastest (1.0). `tilekit tune` measures them at the shapes it times
/// that fill the GPU (see `kernels::matmul::tune::rates`).
pub type Rates = BTreeMap<String, f64>;

/// Plans tiles from an adapter's limits and a device profile.
#[derive(Clone, Debug)]
pub struct Planner {
    /// What the adapter allows per workgroup.
    pub limits: Limits,
    /// The per-multiprocessor figures.
    pub profile: DeviceProfile,
    /// The measured rates of the candidates of the kernel being planned (empty: none known);
    /// the wave model's estimate is multiplied by them ([`Scoring::Waves`]).
    pub rates: Rates,
}

impl Planner {
    /// A planner for these limits and this profile.
    pub fn new(limits: Limits, profile: DeviceProfile) -> Planner {
        Planner {
            limits,
            profile,
            rates: Rates::new(),
        }
    }

    /// The same planner, knowing the measured `rates` of the kernel's candidates.
    pub fn with_rates(mut self, rates: Rates) -> Planner {
        self.rates = rates;
        self
    }

    /// Why the limits refuse `usage` at `workgroup_size`, as the typed error.
    pub fn check(&self, what: &str, workgroup_size: [u32; 3], usage: KernelUse) -> Result<()> {
        let l = &self.limits;
        let max = l.max_workgroup_size();
        // (what is counted, needed, the wgpu limit by name, its value), in the order refused.
        let checks = [
            (
                "workgroup bytes",
                usage.workgroup_bytes,
                "max_compute_workgroup_storage_size",
                l.max_compute_workgroup_storage_size,
            ),
            (
                "invocations per workgroup",
                usage.invocations,
                "max_compute_invocations_per_workgroup",
                l.max_compute_invocations_per_workgroup,
            ),
            (
                "workgroup size",
                workgroup_size[0],
                "max_compute_workgroup_size_x",
                max[0],
            ),
            (
                "workgroup size",
                workgroup_size[1],
                "max_compute_workgroup_size_y",
                max[1],
            ),
            (
                "workgroup size",
                workgroup_size[2],
                "max_compute_workgroup_size_z",
                max[2],
            ),
        ];
        for (resource, needed, limit_name, limit) in checks {
            if needed > limit {
                return Err(Error::TileTooLarge {
                    what: what.to_string(),
                    resource,
                    needed: needed as u64,
                    limit_name,
                    limit: limit as u64,
                });
            }
        }
        Ok(())
    }

    /// Every candidate of `kernel` analysed: residency, whether the limits allow it, its score.
    pub fn analyse(&self, kernel: &dyn Tiling) -> Vec<Candidate> {
        let scoring = kernel.scoring();
        kernel
            .candidates()
            .iter()
            .map(|spec| {
                let res = residency(&self.profile, spec.usage);
                let refused = self
                    .check(&spec.label, spec.workgroup_size, spec.usage)
                    .err()
                    .map(|e| e.to_string());
                // Split K by waves of the workgroups resident at once; the fill score then
                // counts the split (a few large blocks over a deep K fill the GPU by splitting).
                // The depth each split gets is rounded to the kernel's granule, which can lower
                // the count: the plan records what the launch will run.
                let (waves_splits, waves_k_split) = spec.split_k.map_or((1, 0), |split| {
                    let slots = self.profile.multiprocessors.unwrap_or(16).max(1) as u64
                        * res.workgroups.max(1) as u64;
                    let wanted = split_k_waves(
                        spec.workgroups,
                        split,
                        slots,
                        self.limits.max_binding_bytes(),
                    );
                    let (depth, n) = split.shares(wanted);
                    (n, depth)
                });
                let launch = |(splits, k_split): (u32, u32)| {
                    let workgroups = spec.workgroups * splits as u64;
                    let score = if refused.is_some() {
                        f64::NEG_INFINITY
                    } else {
                        self.score(scoring, spec, &res, (workgroups, splits, k_split))
                    };
                    (score, workgroups, splits, k_split)
                };
                let (score, workgroups, splits, k_split) = match (scoring, spec.split_k, spec.work)
                {
                    (Scoring::Waves, Some(split), Some(work))
                        if self.profile.is_gpu && refused.is_none() =>
                    {
                        launch(self.fewest_best_splits(spec, &res, split, work, waves_splits))
                    }
                    _ => launch((waves_splits, waves_k_split)),
                };
                // In one split, the last wave's blocks split into heads and tails where the
                // kernel can and the multiprocessors are known: each block of that wave is then
                // two workgroups.
                let stream = match spec.split_k.and_then(|s| s.last_wave.map(|w| (s, w))) {
                    Some((split, wave)) if splits == 1 && refused.is_none() => {
                        let mps = self.profile.multiprocessors.unwrap_or(0) as u64;
                        stream_k(
                            spec.workgroups,
                            mps * res.workgroups as u64,
                            split.k.div_ceil(wave.slice),
                        )
                        .filter(|sk| {
                            2 * sk.blocks(spec.workgroups) * wave.block_bytes
                                <= self.limits.max_binding_bytes()
                        })
                    }
                    _ => None,
                };
                let workgroups =
                    stream.map_or(workgroups, |sk| workgroups + sk.blocks(spec.workgroups));
                // Every block's slices shared out evenly, where the kernel can and the wave
                // model estimates that faster than the whole blocks or the split above.
                let shared = match (scoring, spec.split_k, spec.work) {
                    (Scoring::Waves, Some(split), Some(work)) if refused.is_none() => self
                        .shared(spec, &res, split, work)
                        .filter(|(_, shared_score)| *shared_score > score),
                    _ => None,
                };
                let (score, workgroups, splits, k_split, stream) = match shared {
                    Some((shares, shared_score)) => (
                        shared_score,
                        shares.workgroups,
                        1,
                        spec.split_k.map_or(0, |s| s.k),
                        None,
                    ),
                    None => (score, workgroups, splits, k_split, stream),
                };
                Candidate {
                    label: spec.label.clone(),
                    constants: spec
                        .constants
                        .iter()
                        .map(|(k, v)| (k.to_string(), *v))
                        .collect(),
                    workgroup_size: spec.workgroup_size,
                    usage: spec.usage,
                    refused,
                    residency: res,
                    reuse: spec.reuse,
                    rate: self.rate(scoring, spec),
                    score,
                    workgroups,
                    splits,
                    k_split,
                    waves_splits,
                    stream_k: stream,
                    shares: shared.map(|(shares, _)| shares),
                }
            })
            .collect()
    }

    /// Plan `kernel`: every candidate analysed, the best that fits chosen.
    pub fn plan(&self, kernel: &dyn Tiling) -> Result<Plan> {
        self.plan_inner(kernel, None, ChosenBy::Planner)
    }

    /// Plan `kernel` with the candidate `tile` picks ([`Tile::picks`]) forced; a typed error if
    /// the adapter cannot hold it (or if no candidate is that tile).
    pub fn plan_forced(&self, kernel: &dyn Tiling, tile: &Tile) -> Result<Plan> {
        self.plan_inner(kernel, Some(tile), ChosenBy::Forced)
    }

    /// Plan `kernel` with `tile`, chosen by `by` (the caller, the tuner's cache or the measured
    /// defaults).
    pub fn plan_chosen(&self, kernel: &dyn Tiling, tile: &Tile, by: ChosenBy) -> Result<Plan> {
        self.plan_inner(kernel, Some(tile), by)
    }

    /// `kernel`'s plan with the tile `forced` if given, else the planner's choice.
    pub fn plan_or_forced(&self, kernel: &dyn Tiling, forced: Option<&Tile>) -> Result<Plan> {
        match forced {
            Some(tile) => self.plan_forced(kernel, tile),
            None => self.plan(kernel),
        }
    }

    /// The tile of `kernel`'s candidate labelled `label` (`TILE=16`, `128x128x16`; a label's
    /// leading fields name the candidate they start: `WX=32` picks `WX=32,WK=8,KS=4`): how the
    /// command line turns a name into a [`Tile`]. A typed error lists the labels there are.
    pub fn tile_named(&self, kernel: &dyn Tiling, label: &str) -> Result<Tile> {
        let candidates = kernel.candidates();
        candidates
            .iter()
            .find(|c| {
                c.label.eq_ignore_ascii_case(label) || c.label.starts_with(&format!("{label},"))
            })
            .map(|c| Tile::of(c.constants.iter().copied()))
            .ok_or_else(|| Error::UnknownTile {
                kernel: kernel.kernel().to_string(),
                got: label.to_string(),
                choices: candidates.iter().map(|c| c.label.clone()).collect(),
            })
    }

    fn plan_inner(
        &self,
        kernel: &dyn Tiling,
        forced: Option<&Tile>,
        chosen_by: ChosenBy,
    ) -> Result<Plan> {
        let name = kernel.kernel();
        let candidates = self.analyse(kernel);
        let chosen = match forced {
            Some(tile) => {
                let i = candidates
                    .iter()
                    .position(|c| tile.picks(&c.tile()))
                    .ok_or_else(|| Error::UnknownTile {
                        kernel: name.to_string(),
                        got: tile.to_string(),
                        choices: candidates.iter().map(|c| c.label.clone()).collect(),
                    })?;
                let c = &candidates[i];
                self.check(&format!("{name} {}", c.label), c.workgroup_size, c.usage)?;
                i
            }
            None => {
                let best = candidates
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.refused.is_none())
                    .max_by(|a, b| a.1.score.total_cmp(&b.1.score))
                    .map(|(i, _)| i);
                best.ok_or_else(|| Error::NoPlan {
                    kernel: name.to_string(),
                    reason: candidates
                        .iter()
                        .map(|c| format!("{}: {}", c.label, c.refused.as_deref().unwrap_or("")))
                        .collect::<Vec<_>>()
                        .join("; "),
                })?
            }
        };
        let c = &candidates[chosen];
        let dispatch = Dispatch::fold(
            name,
            c.workgroups,
            self.limits.max_compute_workgroups_per_dimension,
        )?;
        let why = choice::why(
            c,
            chosen_by,
            &self.profile,
            kernel.scoring() == Scoring::Waves,
        );
        Ok(Plan {
            kernel: name.to_string(),
            sizes: kernel
                .sizes()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            profile: self.profile.name.to_string(),
            candidates,
            chosen,
            chosen_by,
            dispatch,
            why,
        })
    }
}

/// `a / b` rounded up, as u64 (workgroup counts).
pub fn cdiv(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// Candidates sized only by a power-of-two workgroup of `WG` invocations, each holding `bytes_per`
/// bytes of workgroup memory per invocation (the reduction's and reverse's tiles).
pub fn workgroup_size_candidates(n: u64, bytes_per: u32, registers: u32) -> Vec<Spec> {
    [64u32, 128, 256, 512, 1024]
        .into_iter()
        .map(|wg| Spec {
            label: format!("WG={wg}"),
            constants: vec![("WG", wg)],
            workgroup_size: [wg, 1, 1],
            usage: KernelUse {
                invocations: wg,
                workgroup_bytes: wg * bytes_per,
                registers,
            },
            reuse: 1.0,
            workgroups: cdiv(n, wg as u64),
            split_k: None,
            work: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> DeviceProfile {
        DeviceProfile::book_device_d()
    }

    #[test]
    fn book_ten_registers_for_full_residency() {
        assert_eq!(max_registers_for_full_residency(&d()), 10);
        let r = residency(
            &d(),
            KernelUse {
                invocations: 512,
                workgroup_bytes: 0,
                registers: 10,
            },
        );
        assert_eq!(r.resident_invocations, 1536);
    }

    #[test]
    fn book_eleven_registers_drop_residency_to_1024() {
        let r = residency(
            &d(),
            KernelUse {
                invocations: 512,
                workgroup_bytes: 0,
                registers: 11,
            },
        );
        assert_eq!(r.by_registers, 2);
        assert_eq!(r.resident_invocations, 1024);
        assert_eq!(r.binding, Resource::Registers);
    }

    #[test]
    fn book_shared_memory_per_block() {
        let two = residency(
            &d(),
            KernelUse {
                invocations: 64,
                workgroup_bytes: 2048,
                registers: 0,
            },
        );
        assert_eq!(two.by_memory, 8);
        let five = residency(
            &d(),
            KernelUse {
                invocations: 64,
                workgroup_bytes: 5 * 1024,
                registers: 0,
            },
        );
        assert_eq!(five.by_memory, 3);
        assert_eq!(five.binding, Resource::WorkgroupMemory);
    }

    #[test]
    fn book_16x16_tile_is_thread_bound_using_12_kib() {
        let tile = KernelUse {
            invocations: 256,
            workgroup_bytes: 2 * 16 * 16 * 4,
            registers: 10,
        };
        assert_eq!(tile.workgroup_bytes, 2048);
        let r = residency(&d(), tile);
        assert_eq!(r.by_threads, 6);
        assert_eq!(r.by_memory, 8);
        assert_eq!(r.workgroups, 6);
        assert_eq!(r.binding, Resource::Threads);
        assert_eq!(r.workgroup_bytes_used, 12 * 1024);
    }
}
