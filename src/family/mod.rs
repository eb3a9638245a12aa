//! What a kernel family is: the [`Family`] trait the registry (`crate::kernels::FAMILIES`)
//! lists, its shader modules and pipelines, and the kernels `tilekit plan` sizes. Its lesson lives
//! in `tilekit-course`, its command and bench cases in `tilekit-cli`, each registered by name.

use crate::pipeline::Shader;
use crate::plan::{Planner, Tiling};
use crate::Result;

/// A fieldless enum of a family's variants (or operators) with its command-line names: `ALL`
/// (in the lesson's order), `name()` and `parse()` (a typed error lists the choices).
macro_rules! named_enum {
    ($(#[$m:meta])* pub enum $name:ident ($what:literal) { $($(#[$vm:meta])* $v:ident => $s:literal,)+ }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
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

/// A shader module a family builds, and the optional features it needs (an adapter without them
/// never builds it; every other module of the family still works).
#[derive(Clone, Debug)]
pub struct Module {
    /// The source (every element-type specialisation is its own module).
    pub shader: Shader,
    /// Optional wgpu features the module needs.
    pub needs: wgpu::Features,
}

/// One pipeline a family can launch: a module, an entry point and a set of override constants
/// the planner can emit (the shader tests translate every one for every back end).
#[derive(Clone, Debug)]
pub struct PipelineUse {
    /// The module.
    pub module: Module,
    /// The entry point.
    pub entry: String,
    /// The override constants.
    pub constants: Vec<(String, f64)>,
}

impl PipelineUse {
    /// A pipeline of `module` at `entry` with the constants of `plan`'s choice (or none).
    pub fn new(module: &Module, entry: &str, constants: Vec<(String, f64)>) -> PipelineUse {
        PipelineUse {
            module: module.clone(),
            entry: entry.to_string(),
            constants,
        }
    }
}

/// Builds a kernel's [`Tiling`] from its sizes, on an adapter with these capabilities.
pub type MakeTiling = fn(&[u64], &crate::limits::Caps) -> Result<Box<dyn Tiling>>;

/// A kernel `tilekit plan` can size: its name, its sizes with defaults, and how to build its
/// [`Tiling`] from them.
pub struct PlanKernel {
    /// Name on the command line (`tiled-matmul`).
    pub name: &'static str,
    /// The sizes it takes, in order, with defaults.
    pub sizes: &'static [(&'static str, u64)],
    /// The tiling for those sizes on an adapter with these capabilities (a typed error for sizes
    /// out of range, or a kernel the adapter cannot run).
    pub make: MakeTiling,
}

/// Every candidate of `tiling` that fits `planner`'s limits, as (label, constants): what the
/// planner can emit for it.
pub fn fitting(planner: &Planner, tiling: &dyn Tiling) -> Vec<Vec<(String, f64)>> {
    planner
        .analyse(tiling)
        .into_iter()
        .filter(|c| c.refused.is_none())
        .map(|c| {
            c.constants
                .into_iter()
                .map(|(k, v)| (k, v as f64))
                .collect()
        })
        .collect()
}

/// A kernel family: one lesson, its kernels and everything that presents them.
pub trait Family: Sync {
    /// Short name (`matmul`).
    fn name(&self) -> &'static str;
    /// One line: what the family teaches and where the lesson comes from.
    fn about(&self) -> &'static str;
    /// Every shader module it builds, with the features each needs.
    fn modules(&self) -> Vec<Module>;
    /// Every pipeline it can launch under `planner`'s limits (every variant, every candidate
    /// that fits, with the constants the planner would set).
    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse>;
    /// The kernels `tilekit plan` sizes.
    fn plans(&self) -> Vec<PlanKernel> {
        Vec::new()
    }
}
