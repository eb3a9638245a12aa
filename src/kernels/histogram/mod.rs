//! A 256-bin histogram with workgroup atomics against global atomics (The CUDA Handbook
//! §8.1). Shader: `shaders/histogram.wgsl`. Tests: `tests/histogram.rs`.
//! Example: `examples/07_workgroup_atomics.rs`.

use super::PlanKernel;
use super::{len_u32, Family, Module, PipelineUse, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{cdiv, FixedTiling, KernelUse, Planner, Spec};
use crate::{Error, Gpu};

const SHADER: Shader = Shader::file("histogram", include_str!("../../../shaders/histogram.wgsl"));
const WG: u32 = 256;
/// One workgroup: 256 invocations and the 256 workgroup-memory bins (`local_bins`).
const USAGE: KernelUse = KernelUse {
    invocations: WG,
    workgroup_bytes: 1024,
    registers: 12,
};

crate::family::named_enum! {
    /// Where the counting happens.
    pub enum Variant ("histogram variant") {
        /// Count in `array<atomic<u32>, 256>` workgroup memory, merge once per bin per workgroup.
        Workgroup => "workgroup",
        /// Every value's atomicAdd goes to the 256 global counters.
        Global => "global",
    }
}

impl Variant {
    fn entry(self) -> &'static str {
        match self {
            Variant::Workgroup => "workgroup_atomics",
            Variant::Global => "global_atomics",
        }
    }
}

/// How the values sit in the input words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// `n` bytes packed four per word, little-endian.
    U8(usize),
    /// `n` u32 values, binned by their low byte.
    U32(usize),
}

impl Gpu {
    /// Count the values in `words` on the device.
    pub fn histogram_on_device<'a>(
        &'a self,
        words: &'a DeviceBuffer<u32>,
        values: Values,
        variant: Variant,
    ) -> crate::Call<'a, ([u32; 256], Run)> {
        crate::Call::new(async move {
            let (n, packed, needed) = match values {
                Values::U8(n) => (n, true, n.div_ceil(4)),
                Values::U32(n) => (n, false, n),
            };
            if n == 0 {
                return Err(Error::zero("histogram input"));
            }
            if words.len() < needed {
                return Err(Error::mismatch(
                    format!("histogram input words for {values:?}"),
                    needed,
                    words.len(),
                ));
            }
            let n32 = len_u32("histogram input", n)?;
            self.planner()
                .check("histogram workgroup", [WG, 1, 1], USAGE)?;
            // The bins accumulate, so they start at zero (not poisoned).
            let bins = self.zeros::<u32>("histogram bins", 256).await?;
            let groups = self.grid_stride_groups(USAGE, n as u64);
            let params = self.params2(n32, groups);
            let step = self
                .step(
                    &SHADER,
                    variant.entry(),
                    &constants(packed),
                    &[(0, words.bind()), (1, bins.bind()), (2, params.bind())],
                    groups as u64,
                )
                .await?;
            // The launch and the readback of the bins: one submission, one wait.
            let (timing, bytes) = self
                .execute_and_read_as::<u8>(&[step], bins.raw(), 1024, true)
                .await?;
            let mut counts = [0u32; 256];
            counts.copy_from_slice(&bytemuck::pod_collect_to_vec::<u8, u32>(&bytes));
            let run = Run {
                kernel: "histogram",
                variant: variant.name().into(),
                elements: n as u64,
                bytes: (if packed { n as u64 } else { 4 * n as u64 }) + 1024,
                tile: format!("WG={WG}, {groups} workgroups"),
                plan: None,
                timing,
            };
            Ok((counts, run))
        })
    }

    /// Histogram of `data` on the host: bytes are binned by their value, u32 values by their low
    /// byte (`v & 0xff`).
    pub fn histogram<'a, T: Binned>(
        &'a self,
        data: &'a [T],
        variant: Variant,
    ) -> crate::Call<'a, ([u32; 256], Run)> {
        crate::Call::new(async move {
            if data.is_empty() {
                return Err(Error::zero("histogram input"));
            }
            let (words, values) = T::words(data);
            let words = self.upload("histogram input", &words).await?;
            self.histogram_on_device(&words, values, variant).await
        })
    }
}

/// The values a histogram bins: bytes (packed four to a word on the device) and u32 values
/// (binned by their low byte).
pub trait Binned: bytemuck::Pod + sealed::Sealed {
    /// The words the kernel reads, and what they hold.
    fn words(data: &[Self]) -> (std::borrow::Cow<'_, [u32]>, Values);
}

impl Binned for u8 {
    fn words(data: &[u8]) -> (std::borrow::Cow<'_, [u32]>, Values) {
        (pack_bytes(data).into(), Values::U8(data.len()))
    }
}

impl Binned for u32 {
    fn words(data: &[u32]) -> (std::borrow::Cow<'_, [u32]>, Values) {
        (data.into(), Values::U32(data.len()))
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u32 {}
}

/// Bytes packed four per u32 word, little-endian, the last word padded with zeros.
pub fn pack_bytes(data: &[u8]) -> Vec<u32> {
    data.chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect()
}

fn constants(packed: bool) -> Vec<(String, f64)> {
    vec![
        ("WG".into(), WG as f64),
        ("PACKED".into(), packed as u32 as f64),
    ]
}

/// The histogram family.
pub(crate) struct Histogram;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Histogram = Histogram;

impl Family for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }

    fn about(&self) -> &'static str {
        "a 256-bin histogram counted with workgroup atomics against global atomics (CUDA Handbook 8.1)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![Module {
            shader: SHADER,
            needs: wgpu::Features::empty(),
        }]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        if planner.check("histogram", [WG, 1, 1], USAGE).is_err() {
            return vec![];
        }
        let m = &self.modules()[0];
        Variant::ALL
            .iter()
            .flat_map(|v| [true, false].map(|p| PipelineUse::new(m, v.entry(), constants(p))))
            .collect()
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "histogram",
            sizes: &[("N", 1 << 26)],
            make: |s, _| {
                Ok(Box::new(FixedTiling {
                    kernel: "histogram",
                    sizes: vec![("n", s[0])],
                    spec: Spec {
                        label: format!("WG={WG}"),
                        constants: vec![],
                        workgroup_size: [WG, 1, 1],
                        usage: USAGE,
                        reuse: 1.0,
                        workgroups: cdiv(s[0].max(1), WG as u64),
                        split_k: None,
                        work: None,
                    },
                }))
            },
        }]
    }
}
