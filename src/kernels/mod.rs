//! One module per kernel family; each pairs with `shaders/<family>.wgsl`, `tests/<family>.rs`
//! and an example. Adding a family means adding those files and a `pub mod` line here.

use crate::launch::Timing;
use crate::plan::Plan;
use crate::{Error, Gpu, Result};
use serde::Serialize;

/// A fieldless enum of a family's variants (or operators) with its command-line names: `ALL`
/// (in the lesson's order), `name()` and `parse()` (a typed error lists the choices).
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident ($what:literal) { $($(#[$vm:meta])* $v:ident => $s:literal,)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $v,)+
        }

        impl $name {
            /// Every one, in the lesson's order.
            pub const ALL: [$name; [$($s),+].len()] = [$($name::$v),+];

            /// The name on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$v => $s,)+
                }
            }

            /// Parse a name; an unknown one is a typed error listing the choices.
            pub fn parse(s: &str) -> crate::Result<$name> {
                $name::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| crate::Error::Unknown {
                    what: $what,
                    got: s.to_string(),
                    choices: $name::ALL.iter().map(|v| v.name().to_string()).collect(),
                })
            }
        }
    };
}
pub(crate) use named_enum;

pub mod blur;
pub mod carve;
pub mod histogram;
pub mod matmul;
pub mod reduce;
pub mod reverse;
pub mod transpose;
pub mod wide;

/// The element-type specialisations of a shader file that has an `alias Elem = ...;` line (the
/// reduction): `(type, source)` for each type it is built for. Other files have none.
pub fn specialisations(file: &str, source: &str) -> Vec<(&'static str, String)> {
    match file {
        "reduce.wgsl" => ["f32", "i32", "u32"]
            .into_iter()
            .map(|t| (t, reduce::specialise(source, t)))
            .collect(),
        _ => Vec::new(),
    }
}

/// A 32-bit element: the kernels that only move words (reverse, copy) take any of these.
pub trait Word: bytemuck::Pod + Send + Sync + std::fmt::Debug + PartialEq {}
impl Word for f32 {}
impl Word for i32 {}
impl Word for u32 {}

/// The figures of one run of a memory-bound family (reverse, transpose, histogram, wide, blur).
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    /// Family.
    pub kernel: &'static str,
    /// Variant.
    pub variant: String,
    /// Elements processed.
    pub elements: u64,
    /// Bytes read plus bytes written (each input read once).
    pub bytes: u64,
    /// The tile or workgroup size used.
    pub tile: String,
    /// The planner's analysis, where the family has a tile to choose.
    pub plan: Option<Plan>,
    /// The measured time.
    pub timing: Timing,
}

impl Run {
    /// Effective bandwidth, (bytes read + written) / time, GB/s.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.timing.seconds / 1e9
    }
}

impl Gpu {
    /// Workgroups for a grid-stride kernel whose workgroup uses `usage`, over `items` work items
    /// (one per invocation per step): one full wave, what the device holds at once (the
    /// planner's residency × multiprocessors, 16 where the count is unknown), never more than
    /// the work needs.
    pub(crate) fn grid_stride_groups(&self, usage: crate::plan::KernelUse, items: u64) -> u32 {
        let per_mp = crate::plan::residency(&self.profile, usage)
            .workgroups
            .max(1) as u64;
        let resident = per_mp * self.profile.multiprocessors.unwrap_or(16) as u64;
        items.div_ceil(usage.invocations as u64).clamp(1, resident) as u32
    }

    /// The params uniform most families share: (n, groups, 0, 0).
    pub(crate) fn params2(&self, a: u32, b: u32) -> wgpu::Buffer {
        self.uniform(&[a, b, 0u32, 0u32])
    }
}

/// The element count of a `rows × cols` grid (a matrix, an image), checked: both at least 1, no
/// overflow, and every length in `lengths` (named) equal to it.
pub(crate) fn grid_len(
    what: &str,
    (rows, cols): (usize, usize),
    lengths: &[(&str, usize)],
) -> Result<usize> {
    if rows == 0 || cols == 0 {
        return Err(Error::zero(format!("{what} dimension ({rows}×{cols})")));
    }
    let elems = rows.checked_mul(cols).ok_or_else(|| Error::SizeOverflow {
        what: what.to_string(),
        detail: format!("{rows}×{cols} elements"),
    })?;
    for (name, len) in lengths {
        if *len != elems {
            return Err(Error::mismatch(
                format!("{what} {name} length for {rows}×{cols}"),
                elems,
                len,
            ));
        }
    }
    Ok(elems)
}

/// `u32` from a length, or a typed error naming it.
pub(crate) fn len_u32(what: &str, n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::SizeOverflow {
        what: what.to_string(),
        detail: format!("{n} elements do not fit 32-bit indices"),
    })
}

#[cfg(test)]
mod tests {
    macro_rules! round_trip {
        ($($t:ty),+) => {$(
            for v in <$t>::ALL {
                assert_eq!(<$t>::parse(v.name()).unwrap(), v);
                assert!(v.name().chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
            }
            assert!(<$t>::parse("no-such-name").is_err());
        )+};
    }

    #[test]
    fn command_line_names_round_trip() {
        round_trip!(
            super::matmul::Variant,
            super::reduce::Op,
            super::reduce::Variant,
            super::transpose::Variant,
            super::histogram::Variant,
            super::wide::Width,
            super::blur::Variant
        );
        assert_eq!(super::reduce::Variant::GridStride.name(), "grid-stride");
    }
}
