//! How the planner scores a candidate: by reuse, by occupancy, or by the wave model
//! ([`super::waves`]) with the block's measured rate, including the split of K it runs and
//! whether its slices are shared out evenly. Part of [`Planner`]; pure Rust like the rest.

use super::*;

impl Planner {
    /// Score a candidate (see [`Scoring`]): `workgroups` and `splits` are what its launch runs.
    pub(super) fn score(
        &self,
        scoring: Scoring,
        spec: &Spec,
        res: &Residency,
        (workgroups, splits, k_split): (u64, u32, u32),
    ) -> f64 {
        match (scoring, spec.work) {
            (Scoring::Occupancy, _) => {
                let inv = spec.usage.invocations as f64;
                let occ = if self.profile.is_gpu {
                    res.occupancy
                } else {
                    1.0
                };
                occ * 10.0 - (inv / 256.0).log2().abs()
            }
            (Scoring::Waves, Some(work)) if self.profile.is_gpu => {
                efficiency(
                    work,
                    self.wave_launch(spec, res, (workgroups, splits, k_split)),
                ) * self.waves_rate(spec, &work)
            }
            (Scoring::Reuse | Scoring::Waves, _) => {
                let occupancy_factor = if self.profile.is_gpu {
                    (res.occupancy / 0.25).min(1.0)
                } else {
                    1.0
                };
                let fill = match self.profile.multiprocessors {
                    Some(mps) if self.profile.is_gpu => (workgroups as f64 / mps as f64).min(1.0),
                    _ => 1.0,
                };
                // Larger K slices mean fewer barriers: a tie-breaker only.
                let bk = spec
                    .constants
                    .iter()
                    .find(|c| c.0 == "BK")
                    .map_or(0, |c| c.1) as f64;
                spec.reuse * occupancy_factor * fill + bk / 1000.0
            }
        }
    }

    /// `spec`'s launch of `workgroups` in `splits` slices of `k_split`, as the wave model sees it.
    pub(super) fn wave_launch(
        &self,
        spec: &Spec,
        res: &Residency,
        (workgroups, splits, k_split): (u64, u32, u32),
    ) -> WaveLaunch {
        WaveLaunch {
            multiprocessors: self.profile.multiprocessors.unwrap_or(16),
            threads_per_mp: self.profile.threads_per_mp,
            invocations: spec.usage.invocations,
            resident: res.workgroups,
            workgroups,
            splits,
            k_split,
            partial_bytes: spec.split_k.map_or(0, |s| s.partial_bytes),
        }
    }

    /// The rate the wave model's estimate for `spec` is multiplied by: measured, or else
    /// [`Planner::unmeasured_rate`].
    pub(super) fn waves_rate(&self, spec: &Spec, work: &Work) -> f64 {
        self.rate(Scoring::Waves, spec)
            .unwrap_or_else(|| self.unmeasured_rate(work))
    }

    /// The measured rate that scales `spec`'s score, if it has one: only the wave model uses
    /// them, and only on a GPU.
    pub(super) fn rate(&self, scoring: Scoring, spec: &Spec) -> Option<f64> {
        if scoring != Scoring::Waves || !self.profile.is_gpu || spec.work.is_none() {
            return None;
        }
        self.rates.get(&spec.label).copied()
    }

    /// The rate the wave model scores a candidate with where none was measured for it. Beside
    /// rates a tune measured for the kernel's other candidates (a block added since), no faster
    /// than the slowest of them, so that a rate nobody measured cannot put it first; where none
    /// was measured at all, the kernel's own estimate ([`Work::rate`]).
    pub(super) fn unmeasured_rate(&self, work: &Work) -> f64 {
        self.rates
            .values()
            .copied()
            .reduce(f64::min)
            .unwrap_or(work.rate)
    }

    /// The split of K for `spec` where the wave model scores it: of the counts up to `proposed`
    /// (the waves rule's), the fewest that the model estimates fastest, as (splits, depth). The
    /// waves rule counts only how the workgroups fill the GPU, not what a split's partial
    /// products cost; scored by the model, the cooperative kernel took one or two splits where the
    /// rule took three to seven, and ran mid-size f16 shapes faster (BENCHMARKS.md, "Split of K
    /// by waves"). The rate is looked up once: a small C over a deep K can have hundreds of
    /// counts to score (the library makes each plan once, `Gpu::plan_once`).
    pub(super) fn fewest_best_splits(
        &self,
        spec: &Spec,
        res: &Residency,
        split: SplitK,
        work: Work,
        proposed: u32,
    ) -> (u32, u32) {
        let rate = self.waves_rate(spec, &work);
        let scored = (1..=proposed.max(1)).map(|wanted| {
            let (depth, n) = split.shares(wanted);
            let workgroups = spec.workgroups * n as u64;
            let launch = self.wave_launch(spec, res, (workgroups, n, depth));
            ((n, depth), efficiency(work, launch) * rate)
        });
        // Strictly better only: of equal scores the fewest splits stay.
        scored
            .reduce(|best, next| if next.1 > best.1 { next } else { best })
            .expect("at least one count")
            .0
    }

    /// `spec`'s blocks with their slices shared out evenly among the workgroups the GPU holds at
    /// once ([`even_shares`]), and the wave model's score for that ([`efficiency_shared`] times
    /// the block's rate and [`SHARES_RATE`]): `None` where the kernel cannot, the
    /// multiprocessors are not known, the blocks fill [`SHARES_MAX_WAVES`] waves, a share would
    /// be shallower than the kernel's least split of K, or the partial blocks would not fit one
    /// binding.
    pub(super) fn shared(
        &self,
        spec: &Spec,
        res: &Residency,
        split: SplitK,
        work: Work,
    ) -> Option<(EvenShares, f64)> {
        let sharing = split.shares?;
        let mps = self
            .profile
            .multiprocessors
            .filter(|_| self.profile.is_gpu)?;
        let unit = sharing.unit.max(1);
        let shares = even_shares(
            spec.workgroups,
            mps as u64 * res.workgroups.max(1) as u64,
            split.k.div_ceil(unit),
            split.min_k.div_ceil(unit),
        )?;
        if shares.partial_bytes(sharing.block_bytes) > self.limits.max_binding_bytes() {
            return None;
        }
        let launch = self.wave_launch(spec, res, (spec.workgroups, 1, split.k));
        let estimate = efficiency_shared(work, launch, shares, sharing);
        Some((
            shares,
            estimate * self.waves_rate(spec, &work) * SHARES_RATE,
        ))
    }
}
