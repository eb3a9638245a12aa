//! What the adapter reports ([`Limits`]) and what it hides ([`DeviceProfile`]).
//!
//! WebGPU exposes per-workgroup limits (the analogue of `sharedMemPerBlock` and
//! `maxThreadsPerBlock`) but not the per-multiprocessor figures that PMPP 4.7 reasons with:
//! threads, registers and shared memory per SM. A `DeviceProfile` supplies those from published
//! figures, or the book's device D, or a conservative default.

use serde::Serialize;

/// A snapshot of the adapter's compute limits. Built from `wgpu::Limits`, or by hand for tests
/// and what-if analysis (`tilekit plan --limits webgpu-default`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// `max_compute_workgroup_storage_size`: bytes of workgroup memory per workgroup.
    pub workgroup_storage: u32,
    /// `max_compute_invocations_per_workgroup`.
    pub invocations: u32,
    /// `max_compute_workgroup_size_{x,y,z}`.
    pub workgroup_size: [u32; 3],
    /// `max_compute_workgroups_per_dimension`.
    pub workgroups_per_dimension: u32,
    /// `max_storage_buffer_binding_size` in bytes.
    pub storage_binding: u64,
    /// `max_buffer_size` in bytes.
    pub buffer_size: u64,
    /// Smallest and largest subgroup size (`AdapterInfo::subgroup_{min,max}_size`); 0 if unknown.
    pub subgroup_sizes: [u32; 2],
}

impl Limits {
    /// WebGPU's baseline limits: what every adapter must offer (16 KiB, 256 invocations).
    pub fn webgpu_default() -> Limits {
        Limits::from_wgpu(&wgpu::Limits::default(), [0, 0])
    }

    /// From wgpu's limits and the adapter's subgroup sizes.
    pub fn from_wgpu(l: &wgpu::Limits, subgroup_sizes: [u32; 2]) -> Limits {
        Limits {
            workgroup_storage: l.max_compute_workgroup_storage_size,
            invocations: l.max_compute_invocations_per_workgroup,
            workgroup_size: [
                l.max_compute_workgroup_size_x,
                l.max_compute_workgroup_size_y,
                l.max_compute_workgroup_size_z,
            ],
            workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            storage_binding: l.max_storage_buffer_binding_size,
            buffer_size: l.max_buffer_size,
            subgroup_sizes,
        }
    }

    /// The largest buffer one binding can see: the smaller of the two buffer limits.
    pub fn max_binding_bytes(&self) -> u64 {
        self.storage_binding.min(self.buffer_size)
    }
}

/// The per-multiprocessor figures WebGPU hides (PMPP 4.7: threads, registers and shared memory
/// per SM, and the block-slot limit). "Multiprocessor" means an NVIDIA SM, an AMD CU, an Apple GPU
/// core, an Intel Xe-core.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceProfile {
    /// Short name used by `--profile`.
    pub name: &'static str,
    /// Where the figures come from.
    pub source: &'static str,
    /// Resident threads (invocations) per multiprocessor.
    pub threads_per_mp: u32,
    /// 32-bit registers per multiprocessor.
    pub registers_per_mp: u32,
    /// Workgroup (shared) memory per multiprocessor, bytes.
    pub workgroup_bytes_per_mp: u32,
    /// Resident workgroups (blocks) per multiprocessor.
    pub workgroups_per_mp: u32,
    /// Registers per thread are allocated in multiples of this (1 = exact, as in the book).
    pub register_granularity: u32,
    /// Most registers one thread may use.
    pub max_registers_per_thread: u32,
    /// Multiprocessors on the device, where known.
    pub multiprocessors: Option<u32>,
    /// False for CPU implementations, where residency does not describe the hardware.
    pub is_gpu: bool,
}

impl DeviceProfile {
    /// PMPP 4.7's hypothetical device D: 1536 threads, 16,384 registers, 16 KiB of shared memory
    /// and 8 blocks per SM.
    pub fn book_device_d() -> DeviceProfile {
        DeviceProfile {
            name: "device-d",
            source: "PMPP 4.7, the book's hypothetical device D",
            threads_per_mp: 1536,
            registers_per_mp: 16_384,
            workgroup_bytes_per_mp: 16 * 1024,
            workgroups_per_mp: 8,
            register_granularity: 1,
            max_registers_per_thread: 255,
            multiprocessors: None,
            is_gpu: true,
        }
    }

    /// Every profile tilekit knows, the conservative default last.
    pub fn all() -> Vec<DeviceProfile> {
        let gpu = |name, source, threads, smem_kib: u32, slots, gran, mps| DeviceProfile {
            name,
            source,
            threads_per_mp: threads,
            registers_per_mp: 65_536,
            workgroup_bytes_per_mp: smem_kib * 1024,
            workgroups_per_mp: slots,
            register_granularity: gran,
            max_registers_per_thread: 255,
            multiprocessors: mps,
            is_gpu: true,
        };
        vec![
            DeviceProfile::book_device_d(),
            gpu(
                "hopper",
                "NVIDIA Hopper (H100 SXM), CUDA occupancy tables: 2048 threads, 64K registers, 228 KiB shared, 32 blocks per SM, 132 SMs",
                2048,
                228,
                32,
                8,
                Some(132),
            ),
            gpu(
                "ampere",
                "NVIDIA Ampere GA100 (A100): 2048 threads, 64K registers, 164 KiB shared, 32 blocks per SM, 108 SMs",
                2048,
                164,
                32,
                8,
                Some(108),
            ),
            gpu(
                "ampere-consumer",
                "NVIDIA Ampere GA10x (RTX 30): 1536 threads, 64K registers, 100 KiB shared, 16 blocks per SM",
                1536,
                100,
                16,
                8,
                None,
            ),
            gpu(
                "turing",
                "NVIDIA Turing (RTX 20, T4): 1024 threads, 64K registers, 64 KiB shared, 16 blocks per SM",
                1024,
                64,
                16,
                8,
                None,
            ),
            DeviceProfile {
                name: "rdna",
                source: "AMD RDNA 2/3 compute unit (wave32): about 1024 resident lanes, 2×128 KiB VGPR files (64K 32-bit registers), 64 KiB LDS; estimates from AMD's ISA guides",
                threads_per_mp: 1024,
                registers_per_mp: 65_536,
                workgroup_bytes_per_mp: 64 * 1024,
                workgroups_per_mp: 32,
                register_granularity: 8,
                max_registers_per_thread: 255,
                multiprocessors: None,
                is_gpu: true,
            },
            DeviceProfile {
                name: "apple",
                source: "Apple M-series GPU core: 1024 threads per threadgroup, 32 KiB threadgroup memory, about 2048 resident threads per core; estimates (Apple publishes no register file size)",
                threads_per_mp: 2048,
                registers_per_mp: 65_536,
                workgroup_bytes_per_mp: 64 * 1024,
                workgroups_per_mp: 24,
                register_granularity: 8,
                max_registers_per_thread: 128,
                multiprocessors: None,
                is_gpu: true,
            },
            DeviceProfile {
                name: "intel-xe",
                source: "Intel Xe-core (Xe-LP/HPG): 16 vector engines × 8 threads × SIMD16 lanes, 64 KiB shared local memory; estimates",
                threads_per_mp: 2048,
                registers_per_mp: 65_536,
                workgroup_bytes_per_mp: 64 * 1024,
                workgroups_per_mp: 32,
                register_granularity: 16,
                max_registers_per_thread: 128,
                multiprocessors: None,
                is_gpu: true,
            },
            DeviceProfile {
                name: "cpu",
                source: "a CPU implementation (lavapipe, SwiftShader, WARP): one workgroup runs at a time per core as SIMD loops; workgroup memory is ordinary RAM, so residency does not limit it",
                threads_per_mp: 1024,
                registers_per_mp: 1 << 20,
                workgroup_bytes_per_mp: 1 << 20,
                workgroups_per_mp: 1,
                register_granularity: 1,
                max_registers_per_thread: 1 << 10,
                multiprocessors: None,
                is_gpu: false,
            },
            DeviceProfile {
                name: "default",
                source: "conservative default for an unknown GPU: 1024 threads, 32K registers, 32 KiB shared, 16 workgroups per multiprocessor",
                threads_per_mp: 1024,
                registers_per_mp: 32_768,
                workgroup_bytes_per_mp: 32 * 1024,
                workgroups_per_mp: 16,
                register_granularity: 8,
                max_registers_per_thread: 128,
                multiprocessors: None,
                is_gpu: true,
            },
        ]
    }

    /// The profile named `name` (see [`DeviceProfile::all`]).
    pub fn named(name: &str) -> crate::Result<DeviceProfile> {
        let all = DeviceProfile::all();
        all.iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .cloned()
            .ok_or_else(|| crate::Error::Unknown {
                what: "device profile",
                got: name.to_string(),
                choices: all.iter().map(|p| p.name.to_string()).collect(),
            })
    }

    /// Guess the profile from the adapter's PCI vendor id, name and device type. Only matches
    /// that are reliable; anything else gets the conservative default.
    pub fn detect(vendor: u32, name: &str, is_cpu: bool) -> DeviceProfile {
        let n = name.to_ascii_lowercase();
        let pick = |p: &str| DeviceProfile::named(p).expect("built-in profile");
        if is_cpu || n.contains("llvmpipe") || n.contains("swiftshader") || n.contains("warp") {
            return pick("cpu");
        }
        match vendor {
            0x10de => {
                let mut p = if n.contains("h100") || n.contains("h200") || n.contains("gh200") {
                    pick("hopper")
                } else if n.contains("a100") || n.contains("a800") {
                    pick("ampere")
                } else if n.contains("rtx 30") || n.contains("a10") || n.contains("a40") {
                    pick("ampere-consumer")
                } else if n.contains("rtx 20") || n.contains("t4") || n.contains("gtx 16") {
                    pick("turing")
                } else {
                    pick("default")
                };
                // H100 PCIe has 114 SMs, not the SXM part's 132.
                if n.contains("h100") && n.contains("pcie") {
                    p.multiprocessors = Some(114);
                }
                p
            }
            0x1002 if n.contains("rx 6") || n.contains("rx 7") || n.contains("rdna") => {
                pick("rdna")
            }
            0x106b => pick("apple"),
            0x8086 if n.contains("arc") || n.contains("xe") => pick("intel-xe"),
            _ if n.contains("apple") => pick("apple"),
            _ => pick("default"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webgpu_baseline_is_16_kib_and_256_invocations() {
        let l = Limits::webgpu_default();
        assert_eq!(l.workgroup_storage, 16_384);
        assert_eq!(l.invocations, 256);
    }

    #[test]
    fn profiles_are_found_by_name_and_detected() {
        assert_eq!(DeviceProfile::named("HOPPER").unwrap().threads_per_mp, 2048);
        assert!(DeviceProfile::named("nope").is_err());
        let h = DeviceProfile::detect(0x10de, "NVIDIA H100 80GB HBM3", false);
        assert_eq!(h.name, "hopper");
        assert_eq!(h.multiprocessors, Some(132));
        assert_eq!(
            DeviceProfile::detect(0x10005, "llvmpipe (LLVM 15.0.6, 256 bits)", true).name,
            "cpu"
        );
        assert_eq!(
            DeviceProfile::detect(0x1234, "Mystery GPU", false).name,
            "default"
        );
    }
}
