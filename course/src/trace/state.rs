//! What a trace keeps while it runs: each invocation's call and control stacks, and what the
//! whole dispatch shares (memories, findings, epochs, budgets).

use super::memory::{Global, How};
use super::program::Program;
use super::pure::{for_each_operand, pure};
use super::value::Val;
use super::{unsupported, Finding, R};
use naga::{Block, Expression, Function, Handle, TypeInner};

/// Why an invocation stopped running.
pub(super) enum Stop {
    /// At a control barrier: which memories it orders, and where it is.
    Barrier { flags: naga::Barrier, site: u32 },
    /// It returned from the entry point.
    Done,
}

pub(super) enum SeqKind {
    Plain,
    Body,
    Continuing,
    Case,
}

pub(super) enum Ctl<'m> {
    Seq {
        block: &'m Block,
        pos: usize,
        kind: SeqKind,
    },
    Loop {
        body: &'m Block,
        continuing: &'m Block,
        break_if: Option<Handle<Expression>>,
        steps: u32,
        site: u32,
    },
    Switch {
        cases: &'m [naga::SwitchCase],
        at: usize,
    },
}

pub(super) struct Frame<'m> {
    pub(super) fun: &'m Function,
    pub(super) info: &'m naga::valid::FunctionInfo,
    pub(super) args: Vec<Val>,
    pub(super) locals: Vec<Vec<u32>>,
    pub(super) vals: Vec<Option<Val>>,
    pub(super) stack: Vec<Ctl<'m>>,
    /// Where the caller wants the result.
    pub(super) result: Option<Handle<Expression>>,
}

/// One invocation.
pub(super) struct Inv<'m> {
    pub local: [u32; 3],
    pub index: u32,
    pub number: u32,
    pub(super) frames: Vec<Frame<'m>>,
    pub(super) private: Vec<Vec<u32>>,
    /// A workgroupUniformLoad waiting on its barrier.
    pub(super) uniform_load: bool,
    /// This epoch's workgroup-memory accesses, in order: (site, variable, word).
    pub wg_log: Vec<(u32, u32, u32)>,
    /// Its own counts: global loads and stores, workgroup loads and stores (instructions).
    pub counts: [u64; 4],
}

/// What the whole dispatch shares.
pub(super) struct World {
    pub globals: Vec<Global>,
    pub findings: Vec<Finding>,
    pub workgroup: u32,
    pub workgroup_id: [u32; 3],
    pub wg_epoch: u32,
    pub st_epoch: u32,
    pub steps: u64,
    pub max_steps: u64,
    pub loop_cap: u32,
    pub max_findings: usize,
    /// The workgroup-memory words each invocation touched this epoch, for the picture:
    /// (variable, word, invocation's local index, how).
    pub epoch_touches: Vec<(u32, u32, u32, How)>,
    pub keep_touches: bool,
}

impl<'m> Inv<'m> {
    pub fn new(p: &Program<'m>, local: [u32; 3], index: u32, number: u32, wg: [u32; 3]) -> R<Self> {
        let f = &p.entry.function;
        let mut args = Vec::new();
        for a in &f.arguments {
            args.push(builtin_arg(p, a.binding.as_ref(), a.ty, local, index, wg)?);
        }
        let mut private = Vec::new();
        for (_, g) in p.module.global_variables.iter() {
            private.push(if g.space == naga::AddressSpace::Private {
                vec![0; p.words_of(g.ty)? as usize]
            } else {
                Vec::new()
            });
        }
        let mut inv = Inv {
            local,
            index,
            number,
            frames: Vec::new(),
            private,
            uniform_load: false,
            wg_log: Vec::new(),
            counts: [0; 4],
        };
        inv.push_frame(p, f, p.entry_info, args, None)?;
        Ok(inv)
    }

    pub(super) fn push_frame(
        &mut self,
        p: &Program<'m>,
        fun: &'m Function,
        info: &'m naga::valid::FunctionInfo,
        args: Vec<Val>,
        result: Option<Handle<Expression>>,
    ) -> R<()> {
        if self.frames.len() > 64 {
            return Err(unsupported("calls nested over 64 deep"));
        }
        let mut locals = Vec::with_capacity(fun.local_variables.len());
        for (_, l) in fun.local_variables.iter() {
            locals.push(vec![0; p.words_of(l.ty)? as usize]);
        }
        let mut frame = Frame {
            fun,
            info,
            args,
            locals,
            vals: vec![None; fun.expressions.len()],
            stack: vec![Ctl::Seq {
                block: &fun.body,
                pos: 0,
                kind: SeqKind::Plain,
            }],
            result,
        };
        for (i, (_, l)) in fun.local_variables.iter().enumerate() {
            if let Some(init) = l.init {
                let v = eval_const_in(p, &mut frame, init)?;
                let n = frame.locals[i].len();
                frame.locals[i].copy_from_slice(&v.words()[..n]);
            }
        }
        self.frames.push(frame);
        Ok(())
    }
}

fn builtin_arg(
    p: &Program,
    binding: Option<&naga::Binding>,
    ty: Handle<naga::Type>,
    local: [u32; 3],
    index: u32,
    wg: [u32; 3],
) -> R<Val> {
    use naga::BuiltIn as B;
    let size = p.workgroup_size;
    match binding {
        Some(naga::Binding::BuiltIn(b)) => Ok(match b {
            B::LocalInvocationId => Val::from_words(&local),
            B::LocalInvocationIndex => Val::scalar(index),
            B::WorkGroupId => Val::from_words(&wg),
            B::NumWorkGroups => Val::from_words(&p.num_workgroups),
            B::WorkGroupSize => Val::from_words(&size),
            B::GlobalInvocationId => Val::from_words(&[
                wg[0] * size[0] + local[0],
                wg[1] * size[1] + local[1],
                wg[2] * size[2] + local[2],
            ]),
            other => return Err(unsupported(format!("the builtin {other:?}"))),
        }),
        None => match &p.module.types[ty].inner {
            TypeInner::Struct { members, span } => {
                let mut w = vec![0u32; *span as usize / 4];
                for m in members {
                    let v = builtin_arg(p, m.binding.as_ref(), m.ty, local, index, wg)?;
                    let at = m.offset as usize / 4;
                    w[at..at + v.words().len()].copy_from_slice(v.words());
                }
                Ok(Val::from_words(&w))
            }
            _ => Err(unsupported("an entry-point argument with no builtin")),
        },
        Some(other) => Err(unsupported(format!("the entry-point input {other:?}"))),
    }
}

/// A constant expression inside a function (a local's initializer, a literal operand).
pub(super) fn eval_const_in<'m>(
    p: &Program<'m>,
    frame: &mut Frame<'m>,
    h: Handle<Expression>,
) -> R<Val> {
    if let Some(v) = &frame.vals[h.index()] {
        return Ok(v.clone());
    }
    let e = &frame.fun.expressions[h];
    let v = match e {
        Expression::Constant(_) | Expression::Override(_) => p.fixed(e).expect("a constant")?,
        Expression::FunctionArgument(i) => frame.args[*i as usize].clone(),
        _ => {
            let mut ops = Vec::new();
            for_each_operand(e, &mut |x| ops.push(x));
            for x in ops {
                eval_const_in(p, frame, x)?;
            }
            let fr = &*frame;
            let types = &p.module.types;
            pure(
                p,
                e,
                &|x| Ok(fr.vals[x.index()].clone().expect("operand evaluated")),
                &|x| fr.info[x].ty.inner_with(types),
            )?
        }
    };
    frame.vals[h.index()] = Some(v.clone());
    Ok(v)
}

impl World {
    pub(super) fn local_of(&self, number: u32, p: &Program) -> [u32; 3] {
        let [x, y, _] = p.workgroup_size;
        let per = x * y * p.workgroup_size[2];
        let i = number % per;
        [i % x, (i / x) % y, i / (x * y)]
    }

    pub(super) fn workgroup_of(&self, n: u32, p: &Program) -> [u32; 3] {
        let [x, y, _] = p.num_workgroups;
        [n % x, (n / x) % y, n / (x * y)]
    }
}
