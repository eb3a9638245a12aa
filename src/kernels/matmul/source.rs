//! A fast kernel's shader, put together: the prelude that names its element types
//! ([`Types::prelude`]), the support passes (`shaders/matmul_support.wgsl`), the kernel's own
//! file, then one form of each of its parts: the loads of A and of B (wide, or four scalar loads
//! per vec4 for a ragged operand read where it lies) and, for a kernel that has them, the stores
//! of C (a vec4 at a time, or element by element for a C of ragged N in one slice of K). Each
//! kernel states its parts once ([`Source`]); a [`Form`] picks one of each, and every module the
//! kernel can launch is one `(Types, Form)`, assembled on first use and kept ([`Built`]).

use super::in_place::InPlace;
use super::support::{self, types_of, Types};
use super::Precision;
use crate::kernels::{Module, PipelineUse};
use crate::pipeline::Shader;
use std::borrow::Cow;
use std::sync::OnceLock;

/// Two forms of one part of a kernel, as WGSL: for rows that are multiples of 4 elements, and
/// for ragged ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Forms {
    /// Rows of 4 elements: vec4 loads or stores.
    pub(crate) wide: &'static str,
    /// Rows of any length: a vec4 of A or B from four scalar loads, C element by element.
    pub(crate) ragged: &'static str,
}

/// A fast kernel's shader in parts.
#[derive(Debug)]
pub(crate) struct Source {
    /// The module name of the wide form (`matmul_coop`).
    pub(crate) name: &'static str,
    /// The kernel's own file.
    pub(crate) main: &'static str,
    /// The loads of A.
    pub(crate) a: Forms,
    /// The loads of B.
    pub(crate) b: Forms,
    /// The stores of C and of split-K's partial products, where the kernel's own file does not
    /// hold them.
    pub(crate) c: Option<Forms>,
    /// Whether it uses cooperative matrices (`enable wgpu_cooperative_matrix;`).
    pub(crate) coop: bool,
    /// Its modules as assembled so far.
    pub(crate) built: Built,
}

/// A source's modules, each `(Types, Form)` assembled (its name and its text, the parts joined)
/// on first use and kept for the process, as the parts themselves are: every launch names two
/// (its main step's, and the wide form's for the padding and the sum), and joining one copies
/// tens of KB of WGSL that the pipeline cache, keyed by the name, then never reads.
#[derive(Debug)]
pub(crate) struct Built([OnceLock<(String, String)>; 32]);

impl Built {
    /// None assembled yet.
    pub(crate) const fn new() -> Built {
        Built([const { OnceLock::new() }; 32])
    }

    /// Where `(types, form)` is kept: one of four type pairs, one of eight forms.
    fn slot(types: Types, form: Form) -> usize {
        let bit = |b: bool| b as usize;
        let t = 2 * bit(types.elem == Precision::F16) + bit(types.out == Precision::F16);
        let f = 4 * bit(form.reads.a) + 2 * bit(form.reads.b) + bit(form.store_ragged);
        8 * t + f
    }
}

/// Which form of each part a module takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Form {
    /// The ragged operands read where they lie; the others are read wide.
    pub(crate) reads: InPlace,
    /// C stored element by element.
    pub(crate) store_ragged: bool,
}

impl Form {
    /// Every operand read wide, C stored a vec4 at a time.
    pub(crate) const WIDE: Form = Form {
        reads: InPlace { a: false, b: false },
        store_ragged: false,
    };

    /// The module name's suffix: `_ragged` (A and B in place), `_ragged_k` (A), `_ragged_n` (B),
    /// then `_c1` for C stored element by element.
    fn suffix(self) -> &'static str {
        match (self.reads.a, self.reads.b, self.store_ragged) {
            (false, false, false) => "",
            (true, true, false) => "_ragged",
            (true, false, false) => "_ragged_k",
            (false, true, false) => "_ragged_n",
            (false, false, true) => "_c1",
            (true, true, true) => "_ragged_c1",
            (true, false, true) => "_ragged_k_c1",
            (false, true, true) => "_ragged_n_c1",
        }
    }
}

impl Source {
    /// The module of `form` with `types` (assembled once, [`Built`]).
    pub(crate) fn module(&'static self, types: Types, form: Form) -> Module {
        let (name, source) = self.built.0[Built::slot(types, form)].get_or_init(|| {
            let pick = |f: Forms, ragged: bool| if ragged { f.ragged } else { f.wide };
            let c = self.c.map_or("", |c| pick(c, form.store_ragged));
            let name = types.module_name(&format!("{}{}", self.name, form.suffix()));
            let parts = [
                &types.prelude(self.coop),
                support::SOURCE,
                self.main,
                pick(self.a, form.reads.a),
                pick(self.b, form.reads.b),
                c,
            ];
            (name, parts.concat())
        });
        let needs = if self.coop {
            types.needs() | wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX
        } else {
            types.needs()
        };
        Module {
            shader: Shader {
                name: Cow::Borrowed(name),
                source: Cow::Borrowed(source),
                checked: false,
                watched: false,
            },
            needs,
        }
    }

    /// Every form the kernel has, [`Form::WIDE`] first: each operand wide or read in place, and,
    /// where it has stores of its own, each with C stored either way.
    pub(crate) fn forms(&'static self) -> Vec<Form> {
        let stores: &[bool] = if self.c.is_some() {
            &[false, true]
        } else {
            &[false]
        };
        stores
            .iter()
            .flat_map(|&store_ragged| {
                [(false, false), (true, true), (true, false), (false, true)].map(|(a, b)| Form {
                    reads: InPlace { a, b },
                    store_ragged,
                })
            })
            .collect()
    }

    /// Every module of a variant with `elem` operands: each output type, each form.
    pub(crate) fn modules(&'static self, elem: Precision) -> Vec<Module> {
        types_of(elem)
            .iter()
            .flat_map(|t| self.forms().into_iter().map(|f| self.module(*t, f)))
            .collect()
    }

    /// Every pipeline a variant with `elem` operands can launch: its `entry` at each of
    /// `configs` (the planner's fitting candidates) in every form, and the support passes
    /// (from the wide form), for each output type.
    pub(crate) fn pipelines(
        &'static self,
        elem: Precision,
        entry: &str,
        configs: &[Vec<(String, f64)>],
    ) -> Vec<PipelineUse> {
        let mut all = Vec::new();
        for types in types_of(elem) {
            for form in self.forms() {
                let main = self.module(*types, form);
                all.extend(
                    configs
                        .iter()
                        .map(|c| PipelineUse::new(&main, entry, c.clone())),
                );
            }
            let wide = self.module(*types, Form::WIDE);
            for pass in ["pad", "pad2", "sum_splits", "sum_splits4"] {
                all.push(PipelineUse::new(&wide, pass, vec![]));
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::{Built, Form, Forms, Source};
    use crate::kernels::matmul::in_place::InPlace;
    use crate::kernels::matmul::support::Types;

    /// Each form names its module after what it reads in place and how it stores C, and joins
    /// exactly the parts it names.
    #[test]
    fn each_form_is_its_own_module_with_the_parts_it_names() {
        const A: Forms = Forms {
            wide: "// PART_A_WIDE\n",
            ragged: "// PART_A_RAGGED\n",
        };
        const B: Forms = Forms {
            wide: "// PART_B_WIDE\n",
            ragged: "// PART_B_RAGGED\n",
        };
        static SOURCE: Source = Source {
            name: "k",
            main: "",
            a: A,
            b: B,
            c: Some(Forms {
                wide: "// PART_C_WIDE\n",
                ragged: "// PART_C_RAGGED\n",
            }),
            coop: false,
            built: Built::new(),
        };
        let source = &SOURCE;
        let forms = source.forms();
        assert_eq!(forms.len(), 8);
        assert_eq!(forms[0], Form::WIDE);
        let mut names: Vec<_> = forms
            .iter()
            .map(|f| source.module(Types::F32, *f).shader.name.clone())
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 8, "{names:?}");
        let form = Form {
            reads: InPlace { a: false, b: true },
            store_ragged: true,
        };
        let m = source.module(Types::F32, form);
        assert_eq!(m.shader.name, "k_ragged_n_c1");
        for (part, there) in [
            ("PART_A_WIDE", true),
            ("PART_A_RAGGED", false),
            ("PART_B_WIDE", false),
            ("PART_B_RAGGED", true),
            ("PART_C_WIDE", false),
            ("PART_C_RAGGED", true),
        ] {
            assert_eq!(m.shader.source.contains(part), there, "{part}");
        }
        // Assembled once: asked again, the same text, not a copy of it.
        let again = source.module(Types::F32, form);
        assert!(std::ptr::eq(
            m.shader.source.as_ptr(),
            again.shader.source.as_ptr()
        ));
        // Every pair of types and every form is kept apart.
        let pairs = [Types::F32, Types::F16, Types::F16_F32];
        let mut all: Vec<_> = pairs
            .iter()
            .flat_map(|t| forms.iter().map(|f| source.module(*t, *f).shader.name))
            .collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 8 * 3, "{all:?}");
        // A kernel without stores of its own has the four forms of its loads.
        static LOADS_ONLY: Source = Source {
            name: "k",
            main: "",
            a: A,
            b: B,
            c: None,
            coop: false,
            built: Built::new(),
        };
        let loads_only = &LOADS_ONLY;
        assert_eq!(loads_only.forms().len(), 4);
        let m = loads_only.module(Types::F32, loads_only.forms()[3]);
        assert_eq!(m.shader.name, "k_ragged_n");
        assert!(!m.shader.source.contains("PART_C"));
    }
}
