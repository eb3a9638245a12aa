//! A 256-bin histogram with workgroup atomics against global atomics (CUDA Handbook 8.1,
//! `shared/seeds/004_*.txt`). Shader: `shaders/histogram.wgsl`. Tests: `tests/histogram.rs`.
//! Example: `examples/07_workgroup_atomics.rs`.

use super::{len_u32, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::{Error, Gpu, Result};

const SHADER: Shader = Shader::file("histogram", include_str!("../../shaders/histogram.wgsl"));
const WG: u32 = 256;

crate::kernels::named_enum! {
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
    pub fn histogram_on_device(
        &self,
        words: &DeviceBuffer<u32>,
        values: Values,
        variant: Variant,
    ) -> Result<([u32; 256], Run)> {
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
        let usage = crate::plan::KernelUse {
            invocations: WG,
            workgroup_bytes: 1024,
            registers: 12,
        };
        self.planner()
            .check("histogram workgroup", [WG, 1, 1], usage)?;
        // The bins accumulate, so they start at zero (not poisoned).
        let bins = self.upload("histogram bins", &[0u32; 256])?;
        let groups = self.grid_stride_groups(usage, n as u64);
        let params = self.params2(n32, groups);
        let timing = self.launch(
            &SHADER,
            variant.entry(),
            &[
                ("WG".into(), WG as f64),
                ("PACKED".into(), packed as u32 as f64),
            ],
            &[(0, words.raw()), (1, bins.raw()), (2, &params)],
            groups as u64,
        )?;
        let counts: [u32; 256] = self.read(&bins)?.try_into().expect("256 bins");
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
    }

    /// Histogram of bytes: bin = the byte's value.
    pub fn histogram_u8(&self, data: &[u8], variant: Variant) -> Result<([u32; 256], Run)> {
        if data.is_empty() {
            return Err(Error::zero("histogram input"));
        }
        let words = self.upload("histogram input", &pack_bytes(data))?;
        self.histogram_on_device(&words, Values::U8(data.len()), variant)
    }

    /// Histogram of u32 values binned by their low byte (`v & 0xff`).
    pub fn histogram_u32(&self, data: &[u32], variant: Variant) -> Result<([u32; 256], Run)> {
        if data.is_empty() {
            return Err(Error::zero("histogram input"));
        }
        let words = self.upload("histogram input", data)?;
        self.histogram_on_device(&words, Values::U32(data.len()), variant)
    }
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
