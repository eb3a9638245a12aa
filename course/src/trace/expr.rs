//! A function's expressions as an invocation evaluates them: operands, pointers into memory
//! (with the bounds check WGSL leaves to the implementation made a finding), loads.

use super::access::{push_finding, read, touch};
use super::memory::{How, Space};
use super::program::{span_start, Program};
use super::pure::{element, for_each_operand, pure};
use super::state::{Frame, Inv, World};
use super::value::{Mem, Ptr, Val};
use super::{unsupported, Finding, TraceError, R};
use naga::{Expression, Handle, TypeInner};

/// An operand's value: emitted already, or a constant, argument or pointer made on demand.
pub(super) fn get<'m>(
    p: &Program<'m>,
    w: &mut World,
    inv: &mut Inv<'m>,
    h: Handle<Expression>,
) -> R<Val> {
    if let Some(v) = &inv.frames.last().expect("a frame").vals[h.index()] {
        return Ok(v.clone());
    }
    let v = eval(p, w, inv, h)?;
    inv.frames.last_mut().expect("a frame").vals[h.index()] = Some(v.clone());
    Ok(v)
}

pub(super) fn pointer_of<'m>(
    p: &Program<'m>,
    w: &mut World,
    inv: &mut Inv<'m>,
    h: Handle<Expression>,
) -> R<Ptr> {
    match get(p, w, inv, h)? {
        Val::Ptr(ptr) => Ok(ptr),
        _ => Err(unsupported("a pointer that is not one")),
    }
}

pub(super) fn pointee_is_atomic(p: &Program, frame: &Frame, h: Handle<Expression>) -> bool {
    match frame.info[h].ty.inner_with(&p.module.types) {
        TypeInner::Pointer { base, .. } => {
            matches!(p.module.types[*base].inner, TypeInner::Atomic(_))
        }
        _ => false,
    }
}

pub(super) fn pointee_words(p: &Program, frame: &Frame, h: Handle<Expression>) -> R<u32> {
    match frame.info[h].ty.inner_with(&p.module.types) {
        TypeInner::Pointer { base, .. } => p.words_of(*base),
        TypeInner::ValuePointer { size, .. } => Ok(size.map(|s| s as u32).unwrap_or(1)),
        _ => Err(unsupported("a load through a non-pointer")),
    }
}

/// Evaluates one expression of the current function.
pub(super) fn eval<'m>(
    p: &Program<'m>,
    w: &mut World,
    inv: &mut Inv<'m>,
    h: Handle<Expression>,
) -> R<Val> {
    let depth = inv.frames.len();
    let frame = &inv.frames[depth - 1];
    let e = &frame.fun.expressions[h];
    let types = &p.module.types;
    Ok(match e {
        Expression::Constant(_) | Expression::Override(_) => p.fixed(e).expect("a constant")?,
        Expression::FunctionArgument(i) => frame.args[*i as usize].clone(),
        Expression::GlobalVariable(g) => {
            if p.module.global_variables[*g].space == naga::AddressSpace::Handle {
                return Err(unsupported("textures and samplers"));
            }
            Val::Ptr(Ptr {
                mem: Mem::Global(g.index() as u32),
                word: 0,
                out_of_bounds: false,
            })
        }
        Expression::LocalVariable(l) => Val::Ptr(Ptr {
            mem: Mem::Local {
                frame: depth as u32 - 1,
                var: l.index() as u32,
            },
            word: 0,
            out_of_bounds: false,
        }),
        Expression::Load { pointer } => {
            let ptr = pointer_of(p, w, inv, *pointer)?;
            let frame = &inv.frames[depth - 1];
            let n = pointee_words(p, frame, *pointer)?;
            let how = if pointee_is_atomic(p, frame, *pointer) {
                How::AtomicRead
            } else {
                How::Read
            };
            let site = span_start(&frame.fun.expressions.get_span(h));
            read(p, w, inv, ptr, n, how, site)?
        }
        Expression::Access { base, .. } | Expression::AccessIndex { base, .. }
            if matches!(
                frame.info[*base].ty.inner_with(types),
                TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
            ) =>
        {
            let i = match e {
                Expression::Access { index, .. } => get(p, w, inv, *index)?.first(),
                Expression::AccessIndex { index, .. } => *index,
                _ => unreachable!(),
            };
            let dynamic = matches!(e, Expression::Access { .. });
            let base_ptr = pointer_of(p, w, inv, *base)?;
            let frame = &inv.frames[depth - 1];
            let pointee = match frame.info[*base].ty.inner_with(types) {
                TypeInner::Pointer { base, .. } => &types[*base].inner,
                _ => return Err(unsupported("indexing a pointer to a vector component")),
            };
            let (offset, len) = match pointee {
                TypeInner::Vector { size, .. } => (i, Some(*size as u32)),
                TypeInner::Matrix { columns, rows, .. } => (
                    i * if *rows as u32 == 3 { 4 } else { *rows as u32 },
                    Some(*columns as u32),
                ),
                TypeInner::Array { size, stride, .. } => {
                    let len = match p.array_len(*size)? {
                        Some(n) => n,
                        None => {
                            let total = mem_len(w, inv, base_ptr.mem);
                            (total.saturating_sub(base_ptr.word)) / (stride / 4).max(1)
                        }
                    };
                    (i.wrapping_mul(stride / 4), Some(len))
                }
                TypeInner::Struct { members, .. } => (members[i as usize].offset / 4, None),
                other => return Err(unsupported(format!("indexing {other:?}"))),
            };
            let mut out_of_bounds = base_ptr.out_of_bounds;
            if let (true, Some(len)) = (dynamic, len) {
                if i >= len {
                    out_of_bounds = true;
                    let site = span_start(&frame.fun.expressions.get_span(h));
                    let name = mem_name(p, base_ptr.mem, frame);
                    let touch = touch(p, w, inv, site, How::Read, 0);
                    push_finding(
                        w,
                        Finding::OutOfBounds {
                            variable: name,
                            index: i as i32 as i64,
                            length: len,
                            at: touch,
                        },
                    );
                }
            }
            Val::Ptr(Ptr {
                mem: base_ptr.mem,
                word: base_ptr.word.wrapping_add(offset),
                out_of_bounds,
            })
        }
        Expression::Access { base, index } => {
            // Indexing a value (a vector or a let-bound array): WGSL clamps or reads zero.
            let i = get(p, w, inv, *index)?.first();
            let frame = &inv.frames[depth - 1];
            let len = match frame.info[*base].ty.inner_with(types) {
                TypeInner::Vector { size, .. } => *size as u32,
                TypeInner::Matrix { columns, .. } => *columns as u32,
                TypeInner::Array { size, .. } => p.array_len(*size)?.unwrap_or(u32::MAX),
                _ => u32::MAX,
            };
            if i >= len {
                let site = span_start(&frame.fun.expressions.get_span(h));
                let touch = touch(p, w, inv, site, How::Read, 0);
                push_finding(
                    w,
                    Finding::OutOfBounds {
                        variable: "a value".into(),
                        index: i as i32 as i64,
                        length: len,
                        at: touch,
                    },
                );
            }
            let b = get(p, w, inv, *base)?;
            let frame = &inv.frames[depth - 1];
            element(p, b, frame.info[*base].ty.inner_with(types), i)?
        }
        Expression::ArrayLength(ptr) => {
            let ptr = pointer_of(p, w, inv, *ptr)?;
            let stride = match ptr.mem {
                Mem::Global(g) => {
                    let (_, g) = p
                        .module
                        .global_variables
                        .iter()
                        .nth(g as usize)
                        .expect("a global");
                    match &types[g.ty].inner {
                        TypeInner::Array { stride, .. } => stride / 4,
                        TypeInner::Struct { members, .. } => {
                            match members.last().map(|m| &types[m.ty].inner) {
                                Some(TypeInner::Array { stride, .. }) => stride / 4,
                                _ => 1,
                            }
                        }
                        _ => 1,
                    }
                }
                Mem::Local { .. } => 1,
            };
            Val::scalar(mem_len(w, inv, ptr.mem).saturating_sub(ptr.word) / stride.max(1))
        }
        Expression::CallResult(_)
        | Expression::AtomicResult { .. }
        | Expression::WorkGroupUniformLoadResult { .. } => {
            return Err(TraceError::Setup(
                "a result read before its statement ran".into(),
            ))
        }
        _ => {
            let mut ops = Vec::new();
            for_each_operand(e, &mut |x| ops.push(x));
            for x in ops {
                get(p, w, inv, x)?;
            }
            let fr = &inv.frames[depth - 1];
            pure(
                p,
                e,
                &|x| Ok(fr.vals[x.index()].clone().expect("operand evaluated")),
                &|x| fr.info[x].ty.inner_with(types),
            )?
        }
    })
}

pub(super) fn mem_len(w: &World, inv: &Inv, mem: Mem) -> u32 {
    match mem {
        Mem::Global(g) => {
            let g = g as usize;
            if w.globals[g].space == Space::Private {
                inv.private[g].len() as u32
            } else {
                w.globals[g].data.len() as u32
            }
        }
        Mem::Local { frame, var } => inv.frames[frame as usize].locals[var as usize].len() as u32,
    }
}

pub(super) fn mem_name(p: &Program, mem: Mem, frame: &Frame) -> String {
    match mem {
        Mem::Global(g) => p
            .module
            .global_variables
            .iter()
            .nth(g as usize)
            .and_then(|(_, g)| g.name.clone())
            .unwrap_or_else(|| "?".into()),
        Mem::Local { var, .. } => frame
            .fun
            .local_variables
            .iter()
            .nth(var as usize)
            .and_then(|(_, l)| l.name.clone())
            .unwrap_or_else(|| "a local".into()),
    }
}
