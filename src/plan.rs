//! The planner: "memory as a limiting factor to parallelism" (PMPP 4.7) as pure Rust.
//!
//! For a kernel and each candidate tile it computes what one workgroup needs (invocations,
//! workgroup bytes, estimated registers), refuses candidates the adapter's [`Limits`] cannot hold
//! (wgpu 30 does not check workgroup storage itself: FINDINGS.md pitfall 1), works out how many
//! workgroups a multiprocessor holds under each resource of the [`DeviceProfile`], and ranks the
//! rest. It never talks to a device.

use crate::dispatch::Dispatch;
use crate::limits::{DeviceProfile, Limits};
use crate::{Error, Result};
use serde::Serialize;
use std::fmt::Write as _;

/// What one workgroup of a kernel uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KernelUse {
    /// Invocations (threads) per workgroup.
    pub invocations: u32,
    /// Bytes of workgroup memory per workgroup.
    pub workgroup_bytes: u32,
    /// Estimated 32-bit registers per invocation (0 = not counted).
    pub registers: u32,
}

/// The per-multiprocessor resources that can limit residency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resource {
    /// Resident threads per multiprocessor.
    Threads,
    /// The register file.
    Registers,
    /// Workgroup (shared) memory.
    WorkgroupMemory,
    /// The workgroup (block) slots.
    WorkgroupSlots,
}

impl Resource {
    /// Human name.
    pub fn name(self) -> &'static str {
        match self {
            Resource::Threads => "threads",
            Resource::Registers => "registers",
            Resource::WorkgroupMemory => "workgroup memory",
            Resource::WorkgroupSlots => "workgroup slots",
        }
    }
}

/// How many workgroups of one kernel a multiprocessor holds, by each resource.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Residency {
    /// Workgroups allowed by the thread count.
    pub by_threads: u32,
    /// Workgroups allowed by the register file (`u32::MAX` when registers are not counted).
    pub by_registers: u32,
    /// Workgroups allowed by workgroup memory (`u32::MAX` when the kernel uses none).
    pub by_memory: u32,
    /// Workgroups allowed by the slot limit.
    pub by_slots: u32,
    /// The minimum of the four: workgroups resident at once.
    pub workgroups: u32,
    /// Which resource sets that minimum (the first in the order threads, registers, memory,
    /// slots when several tie).
    pub binding: Resource,
    /// `workgroups × invocations`.
    pub resident_invocations: u32,
    /// `resident_invocations / threads_per_mp`.
    pub occupancy: f64,
    /// Workgroup memory in use at that residency, bytes.
    pub workgroup_bytes_used: u32,
}

/// PMPP 4.7's analysis: how many workgroups of `usage` one multiprocessor of `profile` holds.
pub fn residency(profile: &DeviceProfile, usage: KernelUse) -> Residency {
    let inv = usage.invocations.max(1);
    let by_threads = profile.threads_per_mp / inv;
    let by_registers = if usage.registers == 0 {
        u32::MAX
    } else {
        let g = profile.register_granularity.max(1);
        let per_thread = usage.registers.div_ceil(g) * g;
        if per_thread > profile.max_registers_per_thread {
            0
        } else {
            (profile.registers_per_mp as u64 / (per_thread as u64 * inv as u64)) as u32
        }
    };
    let by_memory = profile
        .workgroup_bytes_per_mp
        .checked_div(usage.workgroup_bytes)
        .unwrap_or(u32::MAX);
    let by_slots = profile.workgroups_per_mp;
    let (binding, workgroups) = [
        (Resource::Threads, by_threads),
        (Resource::Registers, by_registers),
        (Resource::WorkgroupMemory, by_memory),
        (Resource::WorkgroupSlots, by_slots),
    ]
    .into_iter()
    .fold((Resource::Threads, u32::MAX), |best, r| {
        if r.1 < best.1 {
            r
        } else {
            best
        }
    });
    let resident_invocations = workgroups * inv;
    Residency {
        by_threads,
        by_registers,
        by_memory,
        by_slots,
        workgroups,
        binding,
        resident_invocations,
        occupancy: resident_invocations as f64 / profile.threads_per_mp as f64,
        workgroup_bytes_used: workgroups.saturating_mul(usage.workgroup_bytes),
    }
}

/// The most registers per thread that still lets every thread slot be filled (PMPP 4.7: 10 on
/// device D).
pub fn max_registers_for_full_residency(profile: &DeviceProfile) -> u32 {
    let g = profile.register_granularity.max(1);
    (profile.registers_per_mp / profile.threads_per_mp) / g * g
}

/// The kernels the planner sizes, with their problem sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernel {
    /// PMPP fig 4.16/4.20: TILE×TILE workgroup tiles of A and B.
    TiledMatmul {
        /// Rows of A and C.
        m: u32,
        /// Columns of A, rows of B.
        k: u32,
        /// Columns of B and C.
        n: u32,
    },
    /// BM×BN output block per workgroup, TM×TN per invocation, K in BK slices.
    BlockedMatmul {
        /// Rows of A and C.
        m: u32,
        /// Columns of A, rows of B.
        k: u32,
        /// Columns of B and C.
        n: u32,
    },
    /// A workgroup-memory tree reduction over `n` elements.
    Reduce {
        /// Elements.
        n: u64,
    },
    /// Reverse through a workgroup array of one element per invocation.
    Reverse {
        /// Elements.
        n: u64,
    },
    /// Transpose of an M×N matrix through a TILE×TILE tile (padded rows).
    Transpose {
        /// Rows.
        m: u32,
        /// Columns.
        n: u32,
    },
    /// Box blur with the tile and its halo in workgroup memory (PMPP fig 4.1).
    Blur {
        /// Image width.
        width: u32,
        /// Image height.
        height: u32,
        /// BLUR_SIZE: the window is (2·radius+1)².
        radius: u32,
    },
}

impl Kernel {
    /// Short name used on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Kernel::TiledMatmul { .. } => "tiled-matmul",
            Kernel::BlockedMatmul { .. } => "blocked-matmul",
            Kernel::Reduce { .. } => "reduce",
            Kernel::Reverse { .. } => "reverse",
            Kernel::Transpose { .. } => "transpose",
            Kernel::Blur { .. } => "blur",
        }
    }
}

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
    /// The ranking score (higher is better); see [`Plan::why`].
    pub score: f64,
    /// Workgroups the launch needs.
    pub workgroups: u64,
}

/// The planner's answer: the chosen candidate, the constants and dispatch that go with it, and
/// the analysis of every candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The kernel and its sizes.
    pub kernel: Kernel,
    /// The profile the residency figures come from.
    pub profile: String,
    /// Every candidate, in the order considered.
    pub candidates: Vec<Candidate>,
    /// Index of the chosen candidate.
    pub chosen: usize,
    /// The launch grid for the chosen candidate.
    pub dispatch: Dispatch,
    /// One line saying why.
    pub why: String,
}

impl Plan {
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

    /// The value of one chosen override constant.
    pub fn constant(&self, name: &str) -> u32 {
        self.choice()
            .constants
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("plan for {} has no constant {name}", self.kernel.name()))
    }

    /// The table `tilekit plan` prints.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let fmt = |v: u32| {
            if v == u32::MAX {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        let _ = writeln!(
            s,
            "{:<22} {:>8} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>17} {:>6} {:>7} {:>8}  ",
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
            "score"
        );
        for (i, c) in self.candidates.iter().enumerate() {
            let r = &c.residency;
            let _ = writeln!(
                s,
                "{:<22} {:>8} {:>6} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>17} {:>5.0}% {:>6.1}x {:>8} {}",
                c.label,
                c.usage.workgroup_bytes,
                c.usage.invocations,
                c.usage.registers,
                if c.refused.is_none() { "yes" } else { "no" },
                fmt(r.by_threads),
                fmt(r.by_registers),
                fmt(r.by_memory),
                fmt(r.by_slots),
                r.binding.name(),
                r.occupancy * 100.0,
                c.reuse,
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

/// Plans tiles from an adapter's limits and a device profile.
#[derive(Clone, Debug)]
pub struct Planner {
    /// What the adapter allows per workgroup.
    pub limits: Limits,
    /// The per-multiprocessor figures.
    pub profile: DeviceProfile,
}

struct Spec {
    label: String,
    constants: Vec<(&'static str, u32)>,
    workgroup_size: [u32; 3],
    usage: KernelUse,
    reuse: f64,
    workgroups: u64,
}

/// `a / b` rounded up, as u64.
fn cdiv(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

impl Planner {
    /// A planner for these limits and this profile.
    pub fn new(limits: Limits, profile: DeviceProfile) -> Planner {
        Planner { limits, profile }
    }

    /// Why the limits refuse `usage` at `workgroup_size`, as the typed error.
    pub fn check(&self, what: &str, workgroup_size: [u32; 3], usage: KernelUse) -> Result<()> {
        let l = &self.limits;
        let refuse = |resource, needed: u64, limit_name, limit: u64| {
            Err(Error::TileTooLarge {
                what: what.to_string(),
                resource,
                needed,
                limit_name,
                limit,
            })
        };
        if usage.workgroup_bytes > l.workgroup_storage {
            return refuse(
                "workgroup bytes",
                usage.workgroup_bytes as u64,
                "max_compute_workgroup_storage_size",
                l.workgroup_storage as u64,
            );
        }
        if usage.invocations > l.invocations {
            return refuse(
                "invocations per workgroup",
                usage.invocations as u64,
                "max_compute_invocations_per_workgroup",
                l.invocations as u64,
            );
        }
        let names = [
            "max_compute_workgroup_size_x",
            "max_compute_workgroup_size_y",
            "max_compute_workgroup_size_z",
        ];
        for d in 0..3 {
            if workgroup_size[d] > l.workgroup_size[d] {
                return refuse(
                    "workgroup size",
                    workgroup_size[d] as u64,
                    names[d],
                    l.workgroup_size[d] as u64,
                );
            }
        }
        Ok(())
    }

    fn specs(&self, kernel: Kernel) -> Vec<Spec> {
        match kernel {
            Kernel::TiledMatmul { m, n, .. } => [4u32, 8, 16, 32]
                .into_iter()
                .map(|t| Spec {
                    label: format!("TILE={t}"),
                    constants: vec![("TILE", t)],
                    workgroup_size: [t, t, 1],
                    // Two T×T f32 tiles (fig 4.16: Mds and Nds).
                    usage: KernelUse {
                        invocations: t * t,
                        workgroup_bytes: 2 * t * t * 4,
                        registers: 18,
                    },
                    reuse: t as f64,
                    workgroups: cdiv(m as u64, t as u64) * cdiv(n as u64, t as u64),
                })
                .collect(),
            Kernel::BlockedMatmul { m, n, .. } => [
                (128u32, 128u32, 16u32, 8u32, 8u32),
                (128, 128, 8, 8, 8),
                (128, 64, 16, 8, 4),
                (64, 64, 16, 4, 4),
                (64, 64, 8, 4, 4),
                (32, 32, 16, 4, 4),
                (16, 16, 16, 2, 2),
            ]
            .into_iter()
            .map(|(bm, bn, bk, tm, tn)| {
                let (wx, wy) = (bn / tn, bm / tm);
                Spec {
                    label: format!("{bm}x{bn}x{bk}/{tm}x{tn}"),
                    constants: vec![("BM", bm), ("BN", bn), ("BK", bk), ("TM", tm), ("TN", tn)],
                    workgroup_size: [wx, wy, 1],
                    usage: KernelUse {
                        invocations: wx * wy,
                        workgroup_bytes: (bm * bk + bk * bn) * 4,
                        // The TM×TN accumulators, a column of A and a row of B, and addressing.
                        registers: tm * tn + tm + tn + 20,
                    },
                    reuse: 2.0 * (bm * bn) as f64 / (bm + bn) as f64,
                    workgroups: cdiv(m as u64, bm as u64) * cdiv(n as u64, bn as u64),
                }
            })
            .collect(),
            Kernel::Reduce { n } | Kernel::Reverse { n } => [64u32, 128, 256, 512, 1024]
                .into_iter()
                .map(|wg| Spec {
                    label: format!("WG={wg}"),
                    constants: vec![("WG", wg)],
                    workgroup_size: [wg, 1, 1],
                    usage: KernelUse {
                        invocations: wg,
                        workgroup_bytes: wg * 4,
                        registers: 16,
                    },
                    reuse: 1.0,
                    workgroups: cdiv(n, wg as u64),
                })
                .collect(),
            Kernel::Transpose { m, n } => [8u32, 16, 32]
                .into_iter()
                .map(|t| {
                    let rows = t.min(8);
                    Spec {
                        label: format!("TILE={t}, ROWS={rows}"),
                        constants: vec![("TILE", t), ("ROWS", rows)],
                        workgroup_size: [t, rows, 1],
                        // One tile, each row padded by a word (Handbook 8.1: 33 words).
                        usage: KernelUse {
                            invocations: t * rows,
                            workgroup_bytes: t * (t + 1) * 4,
                            registers: 16,
                        },
                        // Coalesced run length on both sides, capped at a 32-word transaction.
                        reuse: t.min(32) as f64,
                        workgroups: cdiv(m as u64, t as u64) * cdiv(n as u64, t as u64),
                    }
                })
                .collect(),
            Kernel::Blur {
                width,
                height,
                radius,
            } => [8u32, 16, 32]
                .into_iter()
                .map(|t| {
                    let side = t + 2 * radius;
                    let window = ((2 * radius + 1) * (2 * radius + 1)) as f64;
                    Spec {
                        label: format!("TILE={t}"),
                        constants: vec![("TILE", t), ("BLUR_SIZE", radius)],
                        workgroup_size: [t, t, 1],
                        usage: KernelUse {
                            invocations: t * t,
                            workgroup_bytes: side.saturating_mul(side).saturating_mul(4),
                            registers: 16,
                        },
                        // Naive: window loads per pixel; tiled: side²/t² loads per pixel.
                        reuse: window * (t * t) as f64 / (side as f64 * side as f64),
                        workgroups: cdiv(width as u64, t as u64) * cdiv(height as u64, t as u64),
                    }
                })
                .collect(),
        }
    }

    /// Score a candidate: global-load reduction, discounted when too few invocations are resident
    /// to hide memory latency (below 25% occupancy) or when the launch has fewer workgroups than
    /// the device has multiprocessors. Workgroup-size-only kernels (reduce, reverse) prefer the
    /// highest occupancy, then 256 invocations (the lessons' block size).
    fn score(&self, kernel: Kernel, spec: &Spec, res: &Residency) -> f64 {
        let occupancy_factor = if self.profile.is_gpu {
            (res.occupancy / 0.25).min(1.0)
        } else {
            1.0
        };
        let fill = match self.profile.multiprocessors {
            Some(mps) if self.profile.is_gpu => (spec.workgroups as f64 / mps as f64).min(1.0),
            _ => 1.0,
        };
        match kernel {
            Kernel::Reduce { .. } | Kernel::Reverse { .. } => {
                let inv = spec.usage.invocations as f64;
                let occ = if self.profile.is_gpu {
                    res.occupancy
                } else {
                    1.0
                };
                occ * 10.0 - (inv / 256.0).log2().abs()
            }
            _ => {
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

    /// Plan `kernel`: every candidate analysed, the best that fits chosen.
    pub fn plan(&self, kernel: Kernel) -> Result<Plan> {
        self.plan_inner(kernel, None)
    }

    /// Plan `kernel` with the candidate whose label is `label` forced; a typed error if the
    /// adapter cannot hold it (or if no candidate has that label).
    pub fn plan_forced(&self, kernel: Kernel, label: &str) -> Result<Plan> {
        self.plan_inner(kernel, Some(label))
    }

    fn plan_inner(&self, kernel: Kernel, forced: Option<&str>) -> Result<Plan> {
        let specs = self.specs(kernel);
        let mut candidates = Vec::with_capacity(specs.len());
        for spec in &specs {
            let res = residency(&self.profile, spec.usage);
            let refused = self
                .check(&spec.label, spec.workgroup_size, spec.usage)
                .err()
                .map(|e| e.to_string());
            let score = if refused.is_some() {
                f64::NEG_INFINITY
            } else {
                self.score(kernel, spec, &res)
            };
            candidates.push(Candidate {
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
                score,
                workgroups: spec.workgroups,
            });
        }
        let chosen = match forced {
            Some(label) => {
                let i = candidates
                    .iter()
                    .position(|c| {
                        c.label.eq_ignore_ascii_case(label)
                            || c.label.starts_with(&format!("{label},"))
                    })
                    .ok_or_else(|| Error::Unknown {
                        what: "tile",
                        got: label.to_string(),
                        choices: candidates.iter().map(|c| c.label.clone()).collect(),
                    })?;
                let c = &candidates[i];
                self.check(
                    &format!("{} {}", kernel.name(), c.label),
                    c.workgroup_size,
                    c.usage,
                )?;
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
                    kernel: kernel.name().to_string(),
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
            kernel.name(),
            c.workgroups,
            self.limits.workgroups_per_dimension,
        )?;
        let r = &c.residency;
        let why = if forced.is_some() {
            format!("{} was asked for and fits this adapter", c.label)
        } else if self.profile.is_gpu {
            format!(
                "{} has the best score: {:.1}x fewer global loads than naive, {} workgroups per multiprocessor ({} binds), {:.0}% occupancy on the {} profile",
                c.label,
                c.reuse,
                r.workgroups,
                r.binding.name(),
                r.occupancy * 100.0,
                self.profile.name
            )
        } else {
            format!(
                "{} has the best score: {:.1}x fewer global loads than naive; on a CPU adapter residency does not apply, so only the limits and the reuse count",
                c.label, c.reuse
            )
        };
        Ok(Plan {
            kernel,
            profile: self.profile.name.to_string(),
            candidates,
            chosen,
            dispatch,
            why,
        })
    }
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

    fn tiled(limits: Limits, profile: DeviceProfile) -> u32 {
        Planner::new(limits, profile)
            .plan(Kernel::TiledMatmul {
                m: 1000,
                k: 1000,
                n: 1000,
            })
            .unwrap()
            .constant("TILE")
    }

    #[test]
    fn webgpu_baseline_gives_tile_16_and_big_adapters_32() {
        let mut big = Limits::webgpu_default();
        big.invocations = 1024;
        big.workgroup_size = [1024, 1024, 64];
        big.workgroup_storage = 48 * 1024;
        for p in DeviceProfile::all() {
            assert_eq!(tiled(Limits::webgpu_default(), p.clone()), 16, "{}", p.name);
            // Device D's 16,384 registers cannot hold one 1024-invocation workgroup at 18
            // registers each, so the analysis keeps it at 16 even where the adapter allows 32.
            let expected = if p.name == "device-d" { 16 } else { 32 };
            assert_eq!(tiled(big.clone(), p.clone()), expected, "{}", p.name);
        }
    }

    #[test]
    fn a_tile_the_adapter_cannot_hold_is_a_typed_error() {
        let p = Planner::new(Limits::webgpu_default(), d());
        let e = p
            .plan_forced(
                Kernel::TiledMatmul {
                    m: 64,
                    k: 64,
                    n: 64,
                },
                "TILE=32",
            )
            .unwrap_err();
        match &e {
            Error::TileTooLarge {
                limit_name,
                needed,
                limit,
                ..
            } => {
                assert_eq!(*limit_name, "max_compute_invocations_per_workgroup");
                assert_eq!((*needed, *limit), (1024, 256));
            }
            other => panic!("{other:?}"),
        }
        assert!(e
            .to_string()
            .contains("max_compute_invocations_per_workgroup"));
        let mut small = Limits::webgpu_default();
        small.workgroup_storage = 1024;
        let e = Planner::new(small, d())
            .plan_forced(
                Kernel::TiledMatmul {
                    m: 64,
                    k: 64,
                    n: 64,
                },
                "TILE=16",
            )
            .unwrap_err();
        assert!(
            e.to_string().contains("max_compute_workgroup_storage_size"),
            "{e}"
        );
    }

    #[test]
    fn every_family_plans_under_the_baseline() {
        let p = Planner::new(
            Limits::webgpu_default(),
            DeviceProfile::named("default").unwrap(),
        );
        for k in [
            Kernel::TiledMatmul { m: 17, k: 33, n: 5 },
            Kernel::BlockedMatmul {
                m: 4096,
                k: 4096,
                n: 4096,
            },
            Kernel::Reduce { n: 1_000_003 },
            Kernel::Reverse { n: 7 },
            Kernel::Transpose { m: 1, n: 1 },
            Kernel::Blur {
                width: 100,
                height: 3,
                radius: 1,
            },
        ] {
            let plan = p.plan(k).unwrap();
            let c = plan.choice();
            assert!(
                c.usage.workgroup_bytes <= 16_384 && c.usage.invocations <= 256,
                "{}",
                plan.table()
            );
            assert!(plan.dispatch.launched() >= c.workgroups);
        }
        // Under 16 KiB the largest register-blocked tile that fits is 128x128x16.
        let b = p
            .plan(Kernel::BlockedMatmul {
                m: 4096,
                k: 4096,
                n: 4096,
            })
            .unwrap();
        assert_eq!(b.choice().label, "128x128x16/8x8");
    }

    #[test]
    fn small_problems_get_smaller_blocks_on_a_large_gpu() {
        let mut l = Limits::webgpu_default();
        l.workgroup_storage = 48 * 1024;
        l.invocations = 1024;
        let p = Planner::new(l, DeviceProfile::named("hopper").unwrap());
        let big = p
            .plan(Kernel::BlockedMatmul {
                m: 4096,
                k: 4096,
                n: 4096,
            })
            .unwrap();
        let small = p
            .plan(Kernel::BlockedMatmul {
                m: 256,
                k: 256,
                n: 256,
            })
            .unwrap();
        assert!(
            big.constant("BM") > small.constant("BM"),
            "{}\n{}",
            big.table(),
            small.table()
        );
    }
}
