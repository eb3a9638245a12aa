//! The kernel families, one folder each, and the one registry (`FAMILIES`) that the command
//! line, the bench, the tour, the planner's `tilekit plan` and the shader tests iterate over.
//!
//! A family folder `src/kernels/F/` holds the lesson whole: the host API and the planner's
//! candidates with what each workgroup uses (`mod.rs`, or one file per variant for matmul),
//! counted from the declarations of its shader `shaders/F*.wgsl`, and, with the `cli` feature,
//! its `run` subcommand (`cli.rs`), its bench cases (`bench.rs`) and its lesson (`lesson.rs`).
//! Its tests are `tests/F.rs`, its example `examples/NN_*.rs`. Adding a family is a new folder
//! and one line in `FAMILIES`; adding a variant changes only its family's folder.

pub(crate) use crate::family::{fitting, Family};
pub use crate::family::{MakeTiling, Module, PipelineUse, PlanKernel};
use crate::launch::Timing;
use crate::plan::{Plan, Planner};
use crate::{Error, Gpu, Result};
use serde::Serialize;

pub mod blur;
pub mod carve;
pub mod histogram;
pub mod matmul;
pub mod reduce;
pub mod reverse;
pub mod transpose;
pub mod wide;

/// Every kernel family, in the order of the lessons. The command line, bench, tour, planner and
/// shader tests iterate over this list: one line registers a family.
pub(crate) static FAMILIES: &[&dyn Family] = &[
    &matmul::FAMILY,
    &reverse::FAMILY,
    &reduce::FAMILY,
    &transpose::FAMILY,
    &histogram::FAMILY,
    &wide::FAMILY,
    &blur::FAMILY,
    &carve::FAMILY,
];

/// The family named `name`.
pub(crate) fn family(name: &str) -> Result<&'static dyn Family> {
    FAMILIES
        .iter()
        .copied()
        .find(|f| f.name() == name)
        .ok_or_else(|| Error::Unknown {
            what: "kernel family",
            got: name.to_string(),
            choices: FAMILIES.iter().map(|f| f.name().to_string()).collect(),
        })
}

/// The shader modules outside any family: the poison fill, the bench's FMA ceiling and the f32 ↔
/// f16 conversion.
fn infrastructure_modules() -> Vec<Module> {
    vec![
        Module {
            shader: crate::buffer::fill_shader(),
            needs: wgpu::Features::empty(),
        },
        Module {
            shader: crate::ceiling::ceiling_shader(),
            needs: wgpu::Features::empty(),
        },
        Module {
            shader: crate::convert::convert_shader(),
            needs: wgpu::Features::empty(),
        },
    ]
}

/// Every family's name and what it teaches, in the lessons' order.
pub fn families() -> Vec<(&'static str, &'static str)> {
    FAMILIES.iter().map(|f| (f.name(), f.about())).collect()
}

/// Every shader module tilekit builds: each family's, then the infrastructure's (the poison
/// fill, the FMA ceiling, the f32 ↔ f16 conversion), with the optional features each needs.
pub fn modules() -> Vec<Module> {
    let mut all: Vec<Module> = FAMILIES.iter().flat_map(|f| f.modules()).collect();
    all.extend(infrastructure_modules());
    all
}

/// Every pipeline family `family` can launch under `planner`'s limits: each variant at each
/// candidate the planner would accept, with its override constants (what wgpu would build).
pub fn pipelines(family_name: &str, planner: &Planner) -> Result<Vec<PipelineUse>> {
    Ok(family(family_name)?.pipelines(planner))
}

/// Every kernel `tilekit plan` can size, across the families.
pub fn plan_kernels() -> Vec<PlanKernel> {
    FAMILIES.iter().flat_map(|f| f.plans()).collect()
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
    /// Effective bandwidth, (bytes read + written) / time, bytes per second.
    pub fn bytes_per_second(&self) -> f64 {
        self.bytes as f64 / self.timing.seconds
    }

    /// [`Run::bytes_per_second`] in GB/s.
    pub fn gbps(&self) -> f64 {
        self.bytes_per_second() / 1e9
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
    pub(crate) fn params2(&self, a: u32, b: u32) -> crate::pool::Uniform {
        self.uniform(&[a, b, 0u32, 0u32])
    }
}

/// One element of a GPU result against its f64 reference: an [`Error::Verification`] naming
/// `what` and `element()` when `got` is further than `bound` from `expected`. NaN fails too: a
/// poisoned element the kernel left unwritten.
pub(crate) fn check_element(
    what: &str,
    element: impl FnOnce() -> String,
    got: f64,
    expected: f64,
    bound: f64,
) -> Result<()> {
    let err = (got - expected).abs();
    if err.is_nan() || err > bound {
        return Err(Error::Verification {
            what: what.to_string(),
            detail: format!(
                "{}: got {got}, expected {expected} (error {err:e}, bound {bound:e})",
                element()
            ),
        });
    }
    Ok(())
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

/// `u32` from a planner size (`tilekit plan`), or a typed error naming it.
pub(crate) fn size_u32(what: &str, v: u64) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::SizeOverflow {
        what: what.to_string(),
        detail: format!("{v} does not fit 32 bits"),
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
            super::reduce::Op,
            super::reduce::Variant,
            super::transpose::Variant,
            super::histogram::Variant,
            super::reverse::Variant,
            super::wide::Width,
            super::blur::Variant
        );
        assert_eq!(super::reduce::Variant::GridStride.name(), "grid-stride");
        for v in super::matmul::Variant::all() {
            assert_eq!(super::matmul::Variant::parse(v.name()).unwrap(), v);
        }
        assert!(super::matmul::Variant::parse("no-such-name").is_err());
    }

    #[test]
    fn family_names_are_unique_and_found() {
        let mut names: Vec<&str> = super::FAMILIES.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), super::FAMILIES.len());
        for n in names {
            assert_eq!(super::family(n).unwrap().name(), n);
        }
        assert!(super::family("nope").is_err());
    }
}
