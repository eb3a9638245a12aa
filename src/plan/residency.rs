//! Residency: how many workgroups of a kernel one multiprocessor holds under each of its
//! resources (threads, registers, workgroup memory, workgroup slots), and which one binds. PMPP
//! 4.7's "memory as a limiting factor to parallelism", as arithmetic on a [`DeviceProfile`].

use crate::limits::DeviceProfile;
use serde::Serialize;

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
    /// Registers per invocation as counted: the estimate rounded up to the allocation
    /// granularity, at most what lets one whole workgroup fit the register file (0 when
    /// registers are not counted).
    pub registers: u32,
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
    let g = profile.register_granularity.max(1);
    let mut registers = usage.registers.div_ceil(g).saturating_mul(g);
    if profile.fits_workgroup_registers {
        // The compiler holds each invocation to the registers that leave room for the whole
        // workgroup, and spills what it needed beyond: NVIDIA's Vulkan driver compiled a
        // 512-invocation matmul block estimated at 180 registers to 128, 65,536 / 512, on the
        // H100 (BENCHMARKS.md, "The f32 kernel is held by its reads of workgroup memory").
        registers = registers.min((profile.registers_per_mp / inv) / g * g);
    }
    let by_registers = if usage.registers == 0 {
        u32::MAX
    } else {
        let per_thread = registers;
        if per_thread == 0 || per_thread > profile.max_registers_per_thread {
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
        registers,
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
