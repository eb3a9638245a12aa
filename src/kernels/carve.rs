//! Several arrays carved from one workgroup allocation (Harris, `shared/seeds/003_*.txt`).
//! Shader: `shaders/carve.wgsl`. Tests: `tests/carve.rs`. Example: `examples/10_carved_arrays.rs`.

use super::{len_u32, Run};
use crate::pipeline::Shader;
use crate::plan::KernelUse;
use crate::{Error, Gpu, Result};

const SHADER: Shader = Shader::file("carve", include_str!("../../shaders/carve.wgsl"));

/// The three parts of the result: i32s, f32s and bytes, each reversed.
#[derive(Clone, Debug, PartialEq)]
pub struct Carved {
    /// The i32 part, reversed.
    pub ints: Vec<i32>,
    /// The f32 part, reversed.
    pub floats: Vec<f32>,
    /// The byte part (4 per record), reversed as one byte string.
    pub chars: Vec<u8>,
}

impl Gpu {
    /// Reverse `n` records (an i32, an f32 and four bytes each) through one workgroup pool of
    /// 3·n words carved into an i32, an f32 and a byte part. `chars.len()` must be `4 n`.
    pub fn carved_reverse(
        &self,
        ints: &[i32],
        floats: &[f32],
        chars: &[u8],
    ) -> Result<(Carved, Run)> {
        let n = len_u32("carved records", ints.len())?;
        if n == 0 {
            return Err(Error::zero("carved records"));
        }
        if floats.len() != ints.len() {
            return Err(Error::mismatch(
                "float part length",
                ints.len(),
                floats.len(),
            ));
        }
        if chars.len() != 4 * ints.len() {
            return Err(Error::mismatch(
                "char part length (4 per record)",
                4 * ints.len(),
                chars.len(),
            ));
        }
        let usage = KernelUse {
            invocations: n,
            workgroup_bytes: 12 * n,
            registers: 12,
        };
        self.planner()
            .check(&format!("carved pool of {n} records"), [n, 1, 1], usage)?;
        let words: Vec<u32> = chars
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let bi = self.upload("ints", ints)?;
        let bf = self.upload("floats", floats)?;
        let bc = self.upload("chars", &words)?;
        let oi = self.alloc::<i32>("out ints", ints.len())?;
        let of = self.alloc::<f32>("out floats", ints.len())?;
        let oc = self.alloc::<u32>("out chars", ints.len())?;
        let timing = self.launch(
            &SHADER,
            "carved_reverse",
            &[("N".to_string(), n as f64)],
            &[
                (0, bi.raw()),
                (1, bf.raw()),
                (2, bc.raw()),
                (3, oi.raw()),
                (4, of.raw()),
                (5, oc.raw()),
            ],
            1,
        )?;
        let chars_out: Vec<u8> = self
            .read(&oc)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let carved = Carved {
            ints: self.read(&oi)?,
            floats: self.read(&of)?,
            chars: chars_out,
        };
        let run = Run {
            kernel: "carve",
            variant: "carved".into(),
            elements: n as u64,
            bytes: 2 * 12 * n as u64,
            tile: format!("N={n}: pool of {} bytes", 12 * n),
            plan: None,
            timing,
        };
        Ok((carved, run))
    }
}
