//! What the planner decided: the [`Plan`] of one problem, every [`Candidate`] with its analysis
//! and score, who chose the tile ([`ChosenBy`]), and the table and the "why" that the command
//! line and the tour print.

use super::{KernelUse, Residency};
use crate::dispatch::Dispatch;
use crate::limits::DeviceProfile;
use serde::Serialize;
use std::fmt::Write as _;

/// One candidate tile and the analysis of it.
#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    /// E.g. `TILE=16` or `128x128x16/8x8`.
    pub label: String,
    /// Override constants to set in the shader.
    pub constants: Vec<(String, u32)>,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// What one workgroup needs.
    pub usage: KernelUse,
    /// `None` if the adapter's limits allow it, else why not (names the limit).
    pub refused: Option<String>,
    /// Workgroups per multiprocessor under each resource.
    pub residency: Residency,
    /// Global-load reduction: how many times fewer global loads than the naive kernel (the tile
    /// width for the tiled matmul).
    pub reuse: f64,
    /// The measured rate its score was multiplied by ([`super::Planner::rates`]), if any.
    pub rate: Option<f64>,
    /// The ranking score (higher is better); see [`Plan::why`].
    pub score: f64,
    /// Workgroups the launch needs: the output blocks times [`Candidate::splits`], plus one
    /// for each block of a last wave split into a head and a tail ([`Candidate::stream_k`]).
    pub workgroups: u64,
    /// Slices of K computed separately and summed (1: no split).
    pub splits: u32,
    /// The depth of K each split computes (a multiple of the kernel's granule; K itself without
    /// a split; 0 for a kernel that never splits K).
    pub k_split: u32,
    /// The splits the waves rule proposed ([`super::split_k_waves`]): [`Candidate::splits`], or
    /// more where the wave model estimated fewer faster (their partial products cost more than
    /// the fuller waves gain).
    pub waves_splits: u32,
    /// Where the blocks leave the last wave partly filled and the kernel can, that wave's blocks
    /// split into heads and tails ([`super::stream_k`]); [`Candidate::workgroups`] counts both.
    pub stream_k: Option<super::StreamK>,
    /// Where every block's slices are shared out evenly among the workgroups the GPU holds at
    /// once ([`super::even_shares`]): then [`Candidate::workgroups`] is theirs, in one split.
    pub shares: Option<super::EvenShares>,
}

/// Who made a choice: of a [`Plan`]'s tile (the planner, the caller forcing one, the autotuner's
/// cache) or of a run's variant (the caller naming one, the autotuner's cache, the planner's
/// rules). One type for both, so that text and JSON say it the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChosenBy {
    /// The planner's analysis (the fallback, and the explanation).
    Planner,
    /// The caller forced a tile by label.
    Forced,
    /// The autotuner's cache for this adapter and shape bucket (`tilekit tune`).
    Tuner,
    /// The winners `tilekit tune` measured on a GPU of this adapter's device profile, shipped
    /// with tilekit: what an adapter without its own tuning cache gets where they plan.
    Measured,
    /// The caller named the variant.
    Caller,
}

/// `n workgroups`, or `1 workgroup`.
pub fn workgroups(n: u32) -> String {
    if n == 1 {
        "1 workgroup".into()
    } else {
        format!("{n} workgroups")
    }
}

impl std::fmt::Display for ChosenBy {
    /// The same word as the JSON (`planner`, `forced`, `tuner`, `measured`, `caller`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChosenBy::Planner => "planner",
            ChosenBy::Forced => "forced",
            ChosenBy::Tuner => "tuner",
            ChosenBy::Measured => "measured",
            ChosenBy::Caller => "caller",
        })
    }
}

/// The planner's answer: the chosen candidate, the constants and dispatch that go with it, and
/// the analysis of every candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The kernel, e.g. `tiled-matmul`.
    pub kernel: String,
    /// The problem size, named.
    #[serde(serialize_with = "ordered_map")]
    pub sizes: Vec<(String, u64)>,
    /// The profile the residency figures come from.
    pub profile: String,
    /// Every candidate, in the order considered.
    pub candidates: Vec<Candidate>,
    /// Index of the chosen candidate.
    pub chosen: usize,
    /// Who chose it.
    pub chosen_by: ChosenBy,
    /// The launch grid for the chosen candidate.
    pub dispatch: Dispatch,
    /// One line saying why.
    pub why: String,
}

fn ordered_map<S: serde::Serializer>(v: &[(String, u64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, x) in v {
        m.serialize_entry(k, x)?;
    }
    m.end()
}

impl Candidate {
    /// Its override constants as a [`super::Tile`].
    pub fn tile(&self) -> super::Tile {
        super::Tile::of(self.constants.iter().map(|(k, v)| (k.clone(), *v)))
    }
}

impl Plan {
    /// The chosen candidate's tile: the override constants the launch sets.
    pub fn tile(&self) -> super::Tile {
        self.choice().tile()
    }

    /// The chosen candidate.
    pub fn choice(&self) -> &Candidate {
        &self.candidates[self.chosen]
    }

    /// The chosen override constants as wgpu wants them.
    pub fn constants(&self) -> Vec<(String, f64)> {
        self.choice()
            .constants
            .iter()
            .map(|(k, v)| (k.clone(), *v as f64))
            .collect()
    }

    /// The value of one chosen override constant. Every candidate of a
    /// [`Tiling`](super::Tiling) sets the same constants, so a missing one is a bug in the
    /// family, not bad input.
    pub fn constant(&self, name: &str) -> u32 {
        self.choice()
            .constants
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("plan for {} has no constant {name}", self.kernel))
    }

    /// The problem size as `1000×1000×1000`.
    pub fn size_text(&self) -> String {
        self.sizes
            .iter()
            .map(|(_, v)| v.to_string())
            .collect::<Vec<_>>()
            .join("×")
    }

    /// The table `tilekit plan` prints. A column of measured rates appears where the score used
    /// some ([`Candidate::rate`]).
    pub fn table(&self) -> String {
        let mut s = String::new();
        let fmt = |v: u32| {
            if v == u32::MAX {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        let rated = self.candidates.iter().any(|c| c.rate.is_some());
        let _ = writeln!(
            s,
            "{:<22} {:>8} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>17} {:>6} {:>7} {}{:>8}  ",
            "candidate",
            "wg bytes",
            "invoc",
            "regs",
            "fits",
            "thr",
            "reg",
            "mem",
            "slot",
            "binding",
            "occup",
            "reuse",
            if rated { "   rate " } else { "" },
            "score"
        );
        for (i, c) in self.candidates.iter().enumerate() {
            let r = &c.residency;
            let rate = match (rated, c.rate) {
                (false, _) => String::new(),
                (true, Some(rate)) => format!("{:>6.0}% ", rate * 100.0),
                (true, None) => format!("{:>7} ", "-"),
            };
            let _ = writeln!(
                s,
                "{:<22} {:>8} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>17} {:>5.0}% {:>6.1}x {}{:>8} {}",
                c.label,
                c.usage.workgroup_bytes,
                c.usage.invocations,
                r.registers,
                if c.refused.is_none() { "yes" } else { "no" },
                fmt(r.by_threads),
                fmt(r.by_registers),
                fmt(r.by_memory),
                fmt(r.by_slots),
                r.binding.name(),
                r.occupancy * 100.0,
                c.reuse,
                rate,
                if c.refused.is_some() { "-".to_string() } else { format!("{:.2}", c.score) },
                if i == self.chosen { "✓" } else { "" }
            );
        }
        for c in self.candidates.iter().filter(|c| c.refused.is_some()) {
            let _ = writeln!(
                s,
                "  {} refused: {}",
                c.label,
                c.refused.as_deref().unwrap_or("")
            );
        }
        let _ = writeln!(s, "why: {}", self.why);
        s
    }
}

/// Why `c` was chosen, as the command line and the tour print it: who chose it (`chosen_by`),
/// what the planner's analysis on `profile` found (the wave model's estimate where `waves`, the
/// kernel's scoring, says the candidates were ranked by it), and how K was split.
pub(super) fn why(
    c: &Candidate,
    chosen_by: ChosenBy,
    profile: &DeviceProfile,
    waves: bool,
) -> String {
    let r = &c.residency;
    let why = match chosen_by {
        ChosenBy::Forced => format!("{} was asked for and fits this adapter", c.label),
        ChosenBy::Tuner => format!(
            "{} was the fastest when `tilekit tune` timed the candidates on this adapter",
            c.label
        ),
        ChosenBy::Measured => format!(
            "{} was the fastest when `tilekit tune` timed the candidates on a GPU of the {} profile (tilekit's measured defaults; `tilekit tune` measures this adapter)",
            c.label, profile.name
        ),
        ChosenBy::Planner if profile.is_gpu && waves => {
            // The wave model scored the blocks as whole workgroups, before any split of the
            // last wave: W = first + 2·rest workgroups are first + rest blocks.
            let scored = c
                .stream_k
                .map_or(c.workgroups, |sk| (c.workgroups + sk.first) / 2);
            let waves = format!(
                "the wave model: {} workgroups, {} per multiprocessor at once (limited by {}), {:.0}% occupancy on the {} profile",
                scored,
                r.workgroups,
                r.binding.name(),
                r.occupancy * 100.0,
                profile.name
            );
            match c.rate {
                None => format!(
                    "{} has the best estimate: it keeps {:.0}% of the multiprocessors' FMA rate busy ({waves})",
                    c.label,
                    c.score * 100.0,
                ),
                Some(rate) => format!(
                    "{} has the best estimate, {:.0}%: it keeps {:.0}% of the multiprocessors' FMA rate busy ({waves}) at {:.0}% of the fastest block's rate, as `tilekit tune` measured it on a full GPU of the {} profile",
                    c.label,
                    c.score * 100.0,
                    c.score / rate * 100.0,
                    rate * 100.0,
                    profile.name
                ),
            }
        }
        ChosenBy::Planner if profile.is_gpu => format!(
            "{} has the best score: {:.1}x fewer global loads than naive, {} per multiprocessor (limited by {}), {:.0}% occupancy on the {} profile",
            c.label,
            c.reuse,
            workgroups(r.workgroups),
            r.binding.name(),
            r.occupancy * 100.0,
            profile.name
        ),
        ChosenBy::Planner | ChosenBy::Caller => format!(
            "{} has the best score: {:.1}x fewer global loads than naive; on a CPU adapter residency does not apply, so only the limits and the reuse count",
            c.label, c.reuse
        ),
    };
    let why = match c.stream_k {
        Some(sk) => format!(
            "{why}; the last wave's blocks (from block {}) split into a head of {} slices and a \
            tail each, so that the multiprocessors finish together (stream-K: {} workgroups in \
            all)",
            sk.first, sk.per, c.workgroups
        ),
        None => why,
    };
    if let Some(sh) = c.shares {
        return format!(
            "{why}; its blocks' {} units of K each laid end to end and shared out evenly among \
            {} workgroups, one a slot, so that every multiprocessor works to the end (stream-K: \
            the wave model estimates that faster than whole blocks or a split of K)",
            sh.units, sh.workgroups
        );
    }
    match (c.splits, c.waves_splits) {
        (1, 1) => why,
        (1, proposed) => format!(
            "{why}; K in one piece: {proposed} splits would fill the GPU in fuller waves, but \
            the wave model counts their partial products as costing more than that gains"
        ),
        (n, proposed) if proposed > n => format!(
            "{why}; K in {n} splits of {}, so that its {} workgroups fill the GPU in waves \
            (not {proposed}: the wave model counts more splits' partial products as costing \
            more than they fill)",
            c.k_split, c.workgroups
        ),
        (n, _) => format!(
            "{why}; K in {n} splits of {}, so that its {} workgroups fill the GPU in waves",
            c.k_split, c.workgroups
        ),
    }
}
