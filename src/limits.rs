//! What the adapter reports ([`Limits`]) and what it hides ([`DeviceProfile`]).
//!
//! WebGPU exposes per-workgroup limits (the analogue of `sharedMemPerBlock` and
//! `maxThreadsPerBlock`) but not the per-multiprocessor figures that PMPP 4.7 reasons with:
//! threads, registers and shared memory per SM. A `DeviceProfile` supplies those from published
//! figures, or the book's device D, or a conservative default.

use serde::Serialize;

/// A snapshot of the adapter's compute limits, named as wgpu names them (`tilekit info` prints
/// the same names, and so does `--json`). Built from `wgpu::Limits`, from a named preset
/// ([`Limits::preset`]) for platforms this machine cannot run, or by hand for what-if analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Bytes of workgroup memory per workgroup (CUDA's `sharedMemPerBlock`).
    pub max_compute_workgroup_storage_size: u32,
    /// Invocations per workgroup (CUDA's `maxThreadsPerBlock`).
    pub max_compute_invocations_per_workgroup: u32,
    /// Largest workgroup in x.
    pub max_compute_workgroup_size_x: u32,
    /// Largest workgroup in y.
    pub max_compute_workgroup_size_y: u32,
    /// Largest workgroup in z.
    pub max_compute_workgroup_size_z: u32,
    /// Workgroups per dispatch dimension (CUDA's 65,535-block grid limit).
    pub max_compute_workgroups_per_dimension: u32,
    /// Bytes one storage-buffer binding can see.
    pub max_storage_buffer_binding_size: u64,
    /// Bytes of one buffer.
    pub max_buffer_size: u64,
    /// Smallest subgroup size (`AdapterInfo::subgroup_min_size`); 0 if unknown.
    pub subgroup_min_size: u32,
    /// Largest subgroup size (`AdapterInfo::subgroup_max_size`); 0 if unknown.
    pub subgroup_max_size: u32,
}

/// The limit presets `--limits NAME` knows, for platforms this machine cannot run: name, where
/// the figures come from.
pub const PRESETS: [(&str, &str); 6] = [
    (
        "webgpu-default",
        "WebGPU's baseline, what every adapter must offer (wgpu::Limits::default)",
    ),
    (
        "apple-m",
        "Apple M-series through Metal: wgpu-hal's Metal backend (32 KiB threadgroup memory, 1024 threads per threadgroup, 65,535 threadgroups per dimension); buffers of 2 GiB, below what M-series report",
    ),
    (
        "dx12",
        "a discrete GPU through DX12: wgpu-hal's DX12 backend (D3D12_CS_* constants: 32 KiB groupshared, 1024 threads, z at most 64, 65,535 groups; bindings of 2^31-1 bytes)",
    ),
    (
        "gl",
        "llvmpipe through OpenGL 4.5 (Mesa 22.3.6) as wgpu's GL backend reports it, measured on this machine kind",
    ),
    (
        "lavapipe",
        "lavapipe (Mesa 22.3.6) through Vulkan, as measured on the CI machine kind (docs/wgpu-notes.md)",
    ),
    (
        "h100",
        "NVIDIA H100 80GB HBM3 through Vulkan, driver 580.159.04, as measured (docs/wgpu-notes.md)",
    ),
];

impl Limits {
    /// Bytes for `len` elements of `T`, checked against the storage-binding and buffer limits
    /// before anything is allocated: a typed error names `what`, the bytes and the limit.
    pub fn check_buffer<T>(&self, what: &str, len: usize) -> crate::Result<u64> {
        if len == 0 {
            return Err(crate::Error::zero(format!("{what} length")));
        }
        let bytes = (len as u64)
            .checked_mul(std::mem::size_of::<T>() as u64)
            .ok_or_else(|| crate::Error::SizeOverflow {
                what: what.to_string(),
                detail: format!("{len} elements"),
            })?;
        let l = self;
        if bytes > l.max_storage_buffer_binding_size {
            return Err(crate::Error::BufferTooLarge {
                what: what.to_string(),
                bytes,
                limit_name: "max_storage_buffer_binding_size",
                limit: l.max_storage_buffer_binding_size,
            });
        }
        if bytes > l.max_buffer_size {
            return Err(crate::Error::BufferTooLarge {
                what: what.to_string(),
                bytes,
                limit_name: "max_buffer_size",
                limit: l.max_buffer_size,
            });
        }
        Ok(bytes)
    }

    /// WebGPU's baseline limits: what every adapter must offer (16 KiB, 256 invocations).
    pub fn webgpu_default() -> Limits {
        Limits::from_wgpu(&wgpu::Limits::default(), [0, 0])
    }

    /// From wgpu's limits and the adapter's subgroup sizes (min, max).
    pub fn from_wgpu(l: &wgpu::Limits, subgroup_sizes: [u32; 2]) -> Limits {
        Limits {
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroup_size_x: l.max_compute_workgroup_size_x,
            max_compute_workgroup_size_y: l.max_compute_workgroup_size_y,
            max_compute_workgroup_size_z: l.max_compute_workgroup_size_z,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_buffer_size: l.max_buffer_size,
            subgroup_min_size: subgroup_sizes[0],
            subgroup_max_size: subgroup_sizes[1],
        }
    }

    /// A named preset (see [`PRESETS`]); an unknown name is a typed error listing them.
    pub fn preset(name: &str) -> crate::Result<Limits> {
        let mut l = Limits::webgpu_default();
        let desktop = |l: &mut Limits, storage: u32, z: u32| {
            l.max_compute_workgroup_storage_size = storage;
            l.max_compute_invocations_per_workgroup = 1024;
            l.max_compute_workgroup_size_x = 1024;
            l.max_compute_workgroup_size_y = 1024;
            l.max_compute_workgroup_size_z = z;
            l.max_compute_workgroups_per_dimension = 65_535;
        };
        match name {
            "webgpu-default" => {}
            "apple-m" => {
                desktop(&mut l, 32_768, 1024);
                l.max_storage_buffer_binding_size = 1 << 31;
                l.max_buffer_size = 1 << 31;
                (l.subgroup_min_size, l.subgroup_max_size) = (32, 32);
            }
            "dx12" => {
                desktop(&mut l, 32_768, 64);
                l.max_storage_buffer_binding_size = (1 << 31) - 1;
                l.max_buffer_size = (1 << 31) - 1;
                (l.subgroup_min_size, l.subgroup_max_size) = (32, 32);
            }
            "gl" => {
                desktop(&mut l, 32_768, 1024);
                l.max_storage_buffer_binding_size = 134_217_728;
                l.max_buffer_size = 2_147_483_647;
                (l.subgroup_min_size, l.subgroup_max_size) = (4, 128);
            }
            "lavapipe" => {
                desktop(&mut l, 32_768, 1024);
                l.max_storage_buffer_binding_size = 134_217_728;
                l.max_buffer_size = 2_147_483_647;
                (l.subgroup_min_size, l.subgroup_max_size) = (8, 8);
            }
            "h100" => {
                desktop(&mut l, 49_152, 64);
                l.max_storage_buffer_binding_size = 2_147_483_644;
                l.max_buffer_size = 4_292_870_144;
                (l.subgroup_min_size, l.subgroup_max_size) = (32, 32);
            }
            other => {
                return Err(crate::Error::Unknown {
                    what: "limits preset",
                    got: other.to_string(),
                    choices: PRESETS.iter().map(|p| p.0.to_string()).collect(),
                })
            }
        }
        Ok(l)
    }

    /// `max_compute_workgroup_size_{x,y,z}` as an array.
    pub fn max_workgroup_size(&self) -> [u32; 3] {
        [
            self.max_compute_workgroup_size_x,
            self.max_compute_workgroup_size_y,
            self.max_compute_workgroup_size_z,
        ]
    }

    /// The largest buffer one binding can see: the smaller of the two buffer limits.
    pub fn max_binding_bytes(&self) -> u64 {
        self.max_storage_buffer_binding_size
            .min(self.max_buffer_size)
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
    /// Whether the compiler holds an invocation to the registers that let one whole workgroup
    /// fit a multiprocessor, spilling the rest: true wherever WGSL runs, since a pipeline's
    /// workgroup size is known when the driver compiles it; false for the book's device D,
    /// where, as for a CUDA kernel without launch bounds, a block that needs more registers than
    /// the multiprocessor has does not run at all.
    pub fits_workgroup_registers: bool,
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
            fits_workgroup_registers: false,
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
            fits_workgroup_registers: true,
        };
        vec![
            DeviceProfile::book_device_d(),
            gpu(
                "hopper",
                "NVIDIA Hopper (H100 SXM), CUDA occupancy tables: 2048 threads, 64K registers, 32 blocks per SM, 132 SMs; 48 KiB of workgroup memory per SM, what NVIDIA's Vulkan driver 580 gives a compute pipeline (measured: 6 workgroups of 8 KiB, 3 of 16, 1 of 28 resident; CUDA's 228 KiB needs an opt-in Vulkan does not have)",
                2048,
                48,
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
                fits_workgroup_registers: true,
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
                fits_workgroup_registers: true,
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
                fits_workgroup_registers: true,
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
                fits_workgroup_registers: true,
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
                fits_workgroup_registers: true,
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

/// One cooperative-matrix configuration an adapter lists
/// (`wgpu::Adapter::cooperative_matrix_properties`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CoopConfig {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// The element type of A and B (`f16`, `f32`, ...).
    pub ab: &'static str,
    /// The accumulator's element type.
    pub cr: &'static str,
}

impl std::fmt::Display for CoopConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{}x{} {}→{}",
            self.m, self.n, self.k, self.ab, self.cr
        )
    }
}

/// What an adapter offers a variant's planner beyond its limits.
#[derive(Clone, Debug, Default)]
pub struct Caps {
    /// The cooperative-matrix configurations it lists (empty without the feature).
    pub coop: Vec<CoopConfig>,
    /// The smallest and largest subgroup size (0 when unknown).
    pub subgroup_sizes: [u32; 2],
    /// The adapter's name, for the errors that say what it lacks.
    pub adapter: String,
}

impl Caps {
    /// What a preset's platform offers (`tilekit plan --limits PRESET`): its subgroup sizes, and
    /// the H100's cooperative-matrix fragment for the `h100` preset.
    pub fn preset(name: &str, limits: &Limits) -> Caps {
        Caps {
            coop: if name == "h100" {
                vec![CoopConfig {
                    m: 16,
                    n: 16,
                    k: 16,
                    ab: "f16",
                    cr: "f32",
                }]
            } else {
                Vec::new()
            },
            subgroup_sizes: [limits.subgroup_min_size, limits.subgroup_max_size],
            adapter: format!("the {name} preset"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webgpu_baseline_is_16_kib_and_256_invocations() {
        let l = Limits::webgpu_default();
        assert_eq!(l.max_compute_workgroup_storage_size, 16_384);
        assert_eq!(l.max_compute_invocations_per_workgroup, 256);
        for (name, _) in PRESETS {
            let p = Limits::preset(name).unwrap();
            assert!(p.max_compute_workgroup_storage_size >= 16_384, "{name}");
            assert!(p.max_compute_invocations_per_workgroup >= 256, "{name}");
        }
        assert!(Limits::preset("nope").is_err());
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
