//! The interpreter's statements: naga's IR of one compute entry point, run on the CPU one
//! invocation at a time. Each invocation keeps its own call stack and control stack
//! (`state.rs`), so it can stop at a barrier and go on after every other invocation of its
//! workgroup has reached it; nothing needs threads, so the same code runs in the page.
//! Expressions are evaluated where naga emits them (`expr.rs`).

use super::access::{read, write, write_words};
use super::expr::{eval, get, pointee_is_atomic, pointee_words, pointer_of};
use super::memory::How;
use super::program::{span_start, Program};
use super::state::{Ctl, Inv, SeqKind, Stop, World};
use super::value::{kind_of, Kind, Val};
use super::{unsupported, TraceError, R};
use naga::{Block, Statement, TypeInner};

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
                        write_words(w, inv, ptr, &[new])?;
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
