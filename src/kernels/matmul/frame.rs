//! The frame of a fast variant's launch around its main step: a ragged K or N read in place
//! (`in_place.rs`) or the operand it misaligns copied into rows of 4 first ([`super::support`]),
//! the output (C itself, or the split-K partials [`super::splits`] adds into C), and the assembly
//! of the [`super::Launch`].

use super::in_place::InPlace;
use super::source::{Form, Source};
use super::splits::{sum_splits, Output};
use super::support::{pad_operands, round4, Padded};
use super::Shape;
use crate::launch::Step;
use crate::pipeline::Shader;
use crate::pool::Bind;
use crate::{Gpu, Result};

/// What the fast variants' launches share, around their own main step: a ragged K or N read in
/// place (`in_place.rs`) or the operand it misaligns copied into rows of 4 elements first, the
/// output (C itself, or f32 split-K partials that `sum_splits` adds into C), and the
/// assembly of the [`super::Launch`].
pub(crate) struct Frame<'a> {
    io: super::Operands<'a>,
    shape: Shape,
    /// The kernel's shader in parts.
    source: &'static Source,
    /// The ragged operands read where they lie.
    reads: InPlace,
    /// The module with the call's element types (padding and the final sum).
    shader: Shader,
    steps: Vec<Step>,
    padded: (Option<Padded>, Option<Padded>),
    out: Option<Output>,
    splits: u32,
}

impl<'a> Frame<'a> {
    /// The operands of `shape` as the main step reads them: the ragged operands of `reads` as
    /// they are, the others copied into rows of 4 (A where K is ragged, B where N is; a step
    /// each); the main step from `source`'s module that reads those in place and the rest wide.
    /// The pipelined kernel decides each operand by its reuse ([`InPlace::by_reuse`]), the
    /// cooperative kernel both by [`super::loads_in_place`], the small-M kernel reads every ragged
    /// operand in place ([`InPlace::ragged`]). The padding and the final sum always come from the
    /// wide form.
    pub(crate) async fn new(
        gpu: &Gpu,
        source: &'static Source,
        io: super::Operands<'a>,
        shape: Shape,
        reads: InPlace,
    ) -> Result<Frame<'a>> {
        let ragged = InPlace::ragged(shape);
        let reads = InPlace {
            a: reads.a && ragged.a,
            b: reads.b && ragged.b,
        };
        let shader = source.module(io.types, Form::WIDE).shader;
        let mut steps = Vec::new();
        let padded = pad_operands(
            gpu,
            &shader,
            io.types.elem,
            (io.a, io.b),
            shape,
            reads,
            &mut steps,
        )
        .await?;
        Ok(Frame {
            io,
            shape,
            source,
            reads,
            shader,
            steps,
            padded,
            out: None,
            splits: 1,
        })
    }

    /// A's and B's row lengths as the main step reads them: K and N, each rounded up to 4 where
    /// that operand was copied.
    pub(crate) fn row_lengths(&self) -> (u32, u32) {
        let Shape { k, n, .. } = self.shape;
        let copied = |p: &Option<Padded>, x: u32| if p.is_some() { round4(x) } else { x };
        (copied(&self.padded.0, k), copied(&self.padded.1, n))
    }

    /// Where the main step writes for `splits` slices of K with output rows of `ld` elements
    /// (C directly when there is one slice and `ld` is C's N, which is ragged only for a kernel
    /// with stores of its own, [`Source::c`]: it stores such a C element by element): A, B, that
    /// output, and the module to launch the main step from (its output type f32 when it writes
    /// partials).
    pub(crate) async fn output(
        &mut self,
        gpu: &Gpu,
        splits: u32,
        ld: u32,
    ) -> Result<(Bind<'_>, Bind<'_>, Bind<'_>, Shader)> {
        let Shape { m, n, .. } = self.shape;
        self.splits = splits;
        self.out = Some(Output::new(gpu, m, n, ld, splits).await?);
        let (a, b) = self.operands();
        let (source, types, reads) = (self.source, self.io.types, self.reads);
        let form = |store_ragged| Form {
            reads,
            store_ragged,
        };
        Ok(match self.out.as_ref().expect("set above") {
            // A C of ragged N stored element by element by a kernel with stores of its own.
            Output::Direct => {
                let ragged = source.c.is_some() && !n.is_multiple_of(4);
                (a, b, self.io.c, source.module(types, form(ragged)).shader)
            }
            Output::Partials(p) => (
                a,
                b,
                p.bind(),
                source.module(types.partials(), form(false)).shader,
            ),
        })
    }

    /// A and B as the main step reads them: copied into rows of 4 where they were, else as given.
    fn operands(&self) -> (Bind<'_>, Bind<'_>) {
        (
            self.padded.0.as_ref().map_or(self.io.a, |b| b.bind()),
            self.padded.1.as_ref().map_or(self.io.b, |b| b.bind()),
        )
    }

    /// Where a main step that adds its own `splits` slices of K writes (`gemv_summed`: the last
    /// workgroup of each block sums them in the same launch): C itself, no `sum_splits` after it;
    /// the split still counted in the launch's tile and figures. A, B, C and the module to launch
    /// from (the call's own output type).
    pub(crate) fn output_summed(&mut self, splits: u32) -> (Bind<'_>, Bind<'_>, Bind<'_>, Shader) {
        self.splits = splits;
        self.out = Some(Output::Direct);
        let (a, b) = self.operands();
        let form = Form {
            reads: self.reads,
            store_ragged: false,
        };
        (
            a,
            b,
            self.io.c,
            self.source.module(self.io.types, form).shader,
        )
    }

    /// The launch: the padding, `main` (the plan's step), the sum of the partials into C; the
    /// plan's tile with the split and the operands copied said ("padded A", "padded B",
    /// "padded A and B").
    pub(crate) async fn finish(
        self,
        gpu: &Gpu,
        main: Step,
        plan: &crate::plan::Plan,
    ) -> Result<super::Launch> {
        self.finish_steps(gpu, vec![main], plan, None).await
    }

    /// [`Frame::finish`] with the main work in several steps (stream-K's launch and its sum),
    /// and a buffer of theirs to keep alive until they have run, named in the tile
    /// (`" stream-K"`).
    pub(crate) async fn finish_steps(
        mut self,
        gpu: &Gpu,
        main: Vec<Step>,
        plan: &crate::plan::Plan,
        extra: Option<(&str, Box<dyn std::any::Any + Send>)>,
    ) -> Result<super::Launch> {
        let label = &plan.choice().label;
        let Shape { m, n, .. } = self.shape;
        let n4 = round4(n);
        self.steps.extend(main);
        let mut scratch: Vec<Box<dyn std::any::Any + Send>> = Vec::new();
        if let Some(Output::Partials(p)) = &self.out {
            self.steps.push(
                sum_splits(
                    gpu,
                    &self.shader,
                    p.bind(),
                    self.io.c,
                    (m, n, n4),
                    self.splits,
                )
                .await?,
            );
        }
        let mut tile = label.to_string();
        if self.splits > 1 {
            tile += &format!(" split-K {}", self.splits);
        }
        if let Some((what, keep)) = extra {
            tile += what;
            scratch.push(keep);
        }
        tile += match (&self.padded.0, &self.padded.1) {
            (Some(_), Some(_)) => " padded A and B",
            (Some(_), None) => " padded A",
            (None, Some(_)) => " padded B",
            (None, None) => "",
        };
        scratch.extend(self.padded.0.map(|b| Box::new(b) as _));
        scratch.extend(self.padded.1.map(|b| Box::new(b) as _));
        if let Some(Output::Partials(p)) = self.out {
            scratch.push(Box::new(p));
        }
        Ok(super::Launch {
            steps: self.steps,
            scratch,
            tile,
            dispatch: plan.dispatch,
            splits: (self.splits, plan.choice().k_split),
        })
    }
}
