//! The interpreter: naga's IR of one compute entry point, run on the CPU one invocation at a
//! time. Each invocation keeps its own call stack and control stack, so it can stop at a barrier
//! and go on after every other invocation of its workgroup has reached it; nothing needs threads,
//! so the same code runs in the page. Expressions are evaluated where naga emits them.

use super::access::{read, write, write_words};
use super::expr::{eval, get, pointee_is_atomic, pointee_words, pointer_of};
use super::memory::{Global, How};
use super::pure::{for_each_operand, kind_of, pure, scalar_kind};
use super::value::{Kind, Val};
use super::{Finding, TraceError};
use naga::{Block, Expression, Function, Handle, Statement, TypeInner};

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

/// The module, its validation info and the constants the dispatch fixed.
pub(super) struct Program<'m> {
    pub module: &'m naga::Module,
    pub info: &'m naga::valid::ModuleInfo,
    pub source: &'m str,
    pub overrides: Vec<Option<Val>>,
    pub consts: Vec<Option<Val>>,
    pub entry: &'m naga::EntryPoint,
    pub entry_info: &'m naga::valid::FunctionInfo,
    pub workgroup_size: [u32; 3],
    pub num_workgroups: [u32; 3],
}

pub(super) type R<T> = Result<T, TraceError>;

pub(super) fn unsupported(what: impl Into<String>) -> TraceError {
    TraceError::Unsupported(what.into())
}

impl<'m> Program<'m> {
    pub fn line(&self, site: u32) -> u32 {
        naga::Span::new(site, site + 1)
            .location(self.source)
            .line_number
    }

    pub(super) fn types(&self) -> &'m naga::UniqueArena<naga::Type> {
        &self.module.types
    }

    /// Words a value of `ty` takes.
    pub fn words_of(&self, ty: Handle<naga::Type>) -> R<u32> {
        Ok(match &self.types()[ty].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => {
                scalar_kind(*s)?;
                1
            }
            TypeInner::Vector { size, scalar } => {
                scalar_kind(*scalar)?;
                *size as u32
            }
            TypeInner::Matrix { columns, rows, .. } => {
                *columns as u32 * if *rows as u32 == 3 { 4 } else { *rows as u32 }
            }
            TypeInner::Array { size, stride, .. } => {
                self.array_len(*size)?.unwrap_or(0) * (stride / 4)
            }
            TypeInner::Struct { span, .. } => span / 4,
            other => return Err(unsupported(format!("a value of type {other:?}"))),
        })
    }

    /// An array's element count (`None`: runtime-sized).
    pub fn array_len(&self, size: naga::ArraySize) -> R<Option<u32>> {
        Ok(match size {
            naga::ArraySize::Constant(n) => Some(n.get()),
            naga::ArraySize::Pending(o) => Some(
                self.overrides[o.index()]
                    .as_ref()
                    .ok_or_else(|| {
                        TraceError::Setup("an array sized by an override with no value".into())
                    })?
                    .first(),
            ),
            naga::ArraySize::Dynamic => None,
        })
    }

    fn global_ty(&self, h: Handle<Expression>) -> &'m TypeInner {
        self.info[h].inner_with(self.types())
    }

    /// A module-scope (constant or override) expression's value.
    pub fn global_value(&mut self, h: Handle<Expression>) -> R<Val> {
        if let Some(v) = &self.consts[h.index()] {
            return Ok(v.clone());
        }
        let e = &self.module.global_expressions[h];
        let v = match e {
            Expression::Constant(c) => self.global_value(self.module.constants[*c].init)?,
            Expression::Override(o) => match &self.overrides[o.index()] {
                Some(v) => v.clone(),
                None => {
                    let init = self.module.overrides[*o].init.ok_or_else(|| {
                        TraceError::Setup(format!(
                            "override {} has no value and no default",
                            self.module.overrides[*o].name.as_deref().unwrap_or("?")
                        ))
                    })?;
                    let v = self.global_value(init)?;
                    self.overrides[o.index()] = Some(v.clone());
                    v
                }
            },
            _ => {
                let module = self.module;
                let mut operands = Vec::new();
                let mut err = None;
                let mut each = |x: Handle<Expression>| {
                    operands.push(x);
                };
                for_each_operand(e, &mut each);
                for x in operands {
                    if let Err(e) = self.global_value(x) {
                        err = Some(e);
                    }
                }
                if let Some(e) = err {
                    return Err(e);
                }
                let this = &*self;
                pure(
                    this,
                    e,
                    &|x| Ok(this.consts[x.index()].clone().expect("operand evaluated")),
                    &|x| this.global_ty(x),
                    &module.global_expressions,
                )?
            }
        };
        self.consts[h.index()] = Some(v.clone());
        Ok(v)
    }
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

    fn push_frame(
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
        Expression::Constant(c) => p.consts[p.module.constants[*c].init.index()]
            .clone()
            .ok_or_else(|| TraceError::Setup("a constant was not evaluated".into()))?,
        Expression::Override(o) => p.overrides[o.index()]
            .clone()
            .ok_or_else(|| TraceError::Setup("an override has no value".into()))?,
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
                &fr.fun.expressions,
            )?
        }
    };
    frame.vals[h.index()] = Some(v.clone());
    Ok(v)
}

/// Runs `inv` until it reaches a barrier or returns.
pub(super) fn run<'m>(p: &Program<'m>, w: &mut World, inv: &mut Inv<'m>) -> R<Stop> {
    loop {
        w.steps += 1;
        if w.steps > w.max_steps {
            return Err(TraceError::TooLong(w.max_steps));
        }
        let depth = inv.frames.len();
        let Some(frame) = inv.frames.last_mut() else {
            return Ok(Stop::Done);
        };
        let Some(top) = frame.stack.last_mut() else {
            // The function's body ended without a return.
            let done = frame_return(inv, None);
            if done {
                return Ok(Stop::Done);
            }
            continue;
        };
        match top {
            Ctl::Seq { block, pos, kind } => {
                if *pos >= block.len() {
                    let kind = std::mem::replace(kind, SeqKind::Plain);
                    frame.stack.pop();
                    end_of_seq(p, w, inv, kind)?;
                    continue;
                }
                let block: &'m Block = block;
                let at = *pos;
                *pos += 1;
                let stmt = &block[at];
                let site = block
                    .span_iter()
                    .nth(at)
                    .map(|(_, s)| span_start(s))
                    .unwrap_or(0);
                match stmt {
                    Statement::Emit(range) => {
                        for h in range.clone() {
                            let v = eval(p, w, inv, h)?;
                            inv.frames[depth - 1].vals[h.index()] = Some(v);
                        }
                    }
                    Statement::Block(b) => frame.stack.push(Ctl::Seq {
                        block: b,
                        pos: 0,
                        kind: SeqKind::Plain,
                    }),
                    Statement::If {
                        condition,
                        accept,
                        reject,
                    } => {
                        let c = get(p, w, inv, *condition)?.first() != 0;
                        inv.frames[depth - 1].stack.push(Ctl::Seq {
                            block: if c { accept } else { reject },
                            pos: 0,
                            kind: SeqKind::Plain,
                        });
                    }
                    Statement::Switch { selector, cases } => {
                        let v = get(p, w, inv, *selector)?.first();
                        let at = cases
                            .iter()
                            .position(|c| match c.value {
                                naga::SwitchValue::I32(x) => x as u32 == v,
                                naga::SwitchValue::U32(x) => x == v,
                                naga::SwitchValue::Default => false,
                            })
                            .or_else(|| {
                                cases
                                    .iter()
                                    .position(|c| c.value == naga::SwitchValue::Default)
                            })
                            .unwrap_or(0);
                        let stack = &mut inv.frames[depth - 1].stack;
                        stack.push(Ctl::Switch { cases, at });
                        stack.push(Ctl::Seq {
                            block: &cases[at].body,
                            pos: 0,
                            kind: SeqKind::Case,
                        });
                    }
                    Statement::Loop {
                        body,
                        continuing,
                        break_if,
                    } => {
                        frame.stack.push(Ctl::Loop {
                            body,
                            continuing,
                            break_if: *break_if,
                            steps: 0,
                            site,
                        });
                        frame.stack.push(Ctl::Seq {
                            block: body,
                            pos: 0,
                            kind: SeqKind::Body,
                        });
                    }
                    Statement::Break => loop {
                        match frame.stack.pop() {
                            Some(Ctl::Loop { .. }) | Some(Ctl::Switch { .. }) | None => break,
                            _ => {}
                        }
                    },
                    Statement::Continue => {
                        while let Some(top) = frame.stack.last() {
                            if let Ctl::Loop { continuing, .. } = top {
                                let continuing: &'m Block = continuing;
                                frame.stack.push(Ctl::Seq {
                                    block: continuing,
                                    pos: 0,
                                    kind: SeqKind::Continuing,
                                });
                                break;
                            }
                            frame.stack.pop();
                        }
                    }
                    Statement::Return { value } => {
                        let v = value.map(|h| get(p, w, inv, h)).transpose()?;
                        if frame_return(inv, v) {
                            return Ok(Stop::Done);
                        }
                    }
                    Statement::ControlBarrier(flags) => {
                        return Ok(Stop::Barrier {
                            flags: *flags,
                            site,
                        })
                    }
                    Statement::MemoryBarrier(_) => {}
                    Statement::Store { pointer, value } => {
                        let ptr = pointer_of(p, w, inv, *pointer)?;
                        let v = get(p, w, inv, *value)?;
                        let atomic = pointee_is_atomic(p, &inv.frames[depth - 1], *pointer);
                        let how = if atomic { How::AtomicWrite } else { How::Write };
                        write(p, w, inv, ptr, v.words(), how, site)?;
                    }
                    Statement::Atomic {
                        pointer,
                        fun,
                        value,
                        result,
                    } => {
                        let ptr = pointer_of(p, w, inv, *pointer)?;
                        let k = {
                            let f = &inv.frames[depth - 1];
                            kind_of(f.info[*pointer].ty.inner_with(&p.module.types)).or_else(
                                |_| match f.info[*pointer].ty.inner_with(&p.module.types) {
                                    TypeInner::Pointer { base, .. } => {
                                        kind_of(&p.module.types[*base].inner)
                                    }
                                    _ => Err(unsupported("an atomic on a non-scalar")),
                                },
                            )?
                        };
                        let v = get(p, w, inv, *value)?.first();
                        let old = read(p, w, inv, ptr, 1, How::AtomicUpdate, site)?.first();
                        use naga::AtomicFunction as A;
                        let (new, res) = match fun {
                            A::Add => (old.wrapping_add(v), vec![old]),
                            A::Subtract => (old.wrapping_sub(v), vec![old]),
                            A::And => (old & v, vec![old]),
                            A::InclusiveOr => (old | v, vec![old]),
                            A::ExclusiveOr => (old ^ v, vec![old]),
                            A::Min if k == Kind::I32 => {
                                ((old as i32).min(v as i32) as u32, vec![old])
                            }
                            A::Max if k == Kind::I32 => {
                                ((old as i32).max(v as i32) as u32, vec![old])
                            }
                            A::Min => (old.min(v), vec![old]),
                            A::Max => (old.max(v), vec![old]),
                            A::Exchange { compare: None } => (v, vec![old]),
                            A::Exchange { compare: Some(c) } => {
                                let c = get(p, w, inv, *c)?.first();
                                if old == c {
                                    (v, vec![old, 1])
                                } else {
                                    (old, vec![old, 0])
                                }
                            }
                        };
                        write_words(w, inv, ptr, &[new], How::AtomicUpdate, site, false)?;
                        if let Some(r) = result {
                            inv.frames[depth - 1].vals[r.index()] = Some(Val::from_words(&res));
                        }
                    }
                    Statement::WorkGroupUniformLoad { pointer, result } => {
                        if !inv.uniform_load {
                            // The barrier first; the load when the workgroup comes back.
                            inv.uniform_load = true;
                            if let Some(Ctl::Seq { pos, .. }) =
                                inv.frames[depth - 1].stack.last_mut()
                            {
                                *pos -= 1;
                            }
                            return Ok(Stop::Barrier {
                                flags: naga::Barrier::WORK_GROUP,
                                site,
                            });
                        }
                        inv.uniform_load = false;
                        let ptr = pointer_of(p, w, inv, *pointer)?;
                        let n = pointee_words(p, &inv.frames[depth - 1], *pointer)?;
                        let v = read(p, w, inv, ptr, n, How::Read, site)?;
                        inv.frames[depth - 1].vals[result.index()] = Some(v);
                    }
                    Statement::Call {
                        function,
                        arguments,
                        result,
                    } => {
                        let mut args = Vec::with_capacity(arguments.len());
                        for a in arguments {
                            args.push(get(p, w, inv, *a)?);
                        }
                        let fun = &p.module.functions[*function];
                        inv.push_frame(p, fun, &p.info[*function], args, *result)?;
                    }
                    Statement::Kill => return Err(unsupported("discard in a compute shader")),
                    other => {
                        return Err(unsupported(format!(
                            "the statement {}",
                            format!("{other:?}")
                                .split([' ', '(', '{'])
                                .next()
                                .unwrap_or("?")
                        )))
                    }
                }
            }
            Ctl::Loop { .. } | Ctl::Switch { .. } => {
                // A marker is only on top after its Seq ended: handled in end_of_seq.
                frame.stack.pop();
            }
        }
    }
}

pub(super) fn span_start(s: &naga::Span) -> u32 {
    s.to_range().map(|r| r.start as u32).unwrap_or(0)
}

/// Pops a frame and hands `value` to the caller; true when the entry point returned.
fn frame_return(inv: &mut Inv, value: Option<Val>) -> bool {
    let frame = inv.frames.pop().expect("a frame");
    match inv.frames.last_mut() {
        None => true,
        Some(caller) => {
            if let (Some(r), Some(v)) = (frame.result, value) {
                caller.vals[r.index()] = Some(v);
            }
            false
        }
    }
}

fn end_of_seq<'m>(p: &Program<'m>, w: &mut World, inv: &mut Inv<'m>, kind: SeqKind) -> R<()> {
    let depth = inv.frames.len();
    match kind {
        SeqKind::Plain => {}
        SeqKind::Body => {
            if let Some(Ctl::Loop { continuing, .. }) = inv.frames[depth - 1].stack.last() {
                let continuing: &'m Block = continuing;
                inv.frames[depth - 1].stack.push(Ctl::Seq {
                    block: continuing,
                    pos: 0,
                    kind: SeqKind::Continuing,
                });
            }
        }
        SeqKind::Continuing => {
            let break_if = match inv.frames[depth - 1].stack.last() {
                Some(Ctl::Loop { break_if, .. }) => *break_if,
                _ => None,
            };
            let stop = match break_if {
                Some(h) => get(p, w, inv, h)?.first() != 0,
                None => false,
            };
            let stack = &mut inv.frames[depth - 1].stack;
            if stop {
                stack.pop();
            } else if let Some(Ctl::Loop {
                body, steps, site, ..
            }) = stack.last_mut()
            {
                *steps += 1;
                if *steps >= w.loop_cap {
                    return Err(TraceError::LoopStopped {
                        line: p.line(*site),
                        cap: w.loop_cap,
                    });
                }
                let body: &'m Block = body;
                stack.push(Ctl::Seq {
                    block: body,
                    pos: 0,
                    kind: SeqKind::Body,
                });
            }
        }
        SeqKind::Case => {
            let stack = &mut inv.frames[depth - 1].stack;
            if let Some(Ctl::Switch { cases, at }) = stack.last_mut() {
                if cases[*at].fall_through && *at + 1 < cases.len() {
                    *at += 1;
                    let body = &cases[*at].body;
                    stack.push(Ctl::Seq {
                        block: body,
                        pos: 0,
                        kind: SeqKind::Case,
                    });
                } else {
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}
