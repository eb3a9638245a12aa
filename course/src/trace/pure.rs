//! Expressions with no memory or invocation behind them (literals, arithmetic, composites,
//! conversions), shared by module-scope constants and function bodies, and the module-scope
//! constants and overrides themselves.

use super::program::Program;
use super::value::{self, kind_of, scalar_kind, Kind, Val};
use super::{unsupported, TraceError, R};
use naga::{Expression, Handle, TypeInner};

/// Every operand handle of an expression with no memory behind it (the tracer's, and the
/// exercise checker's uniformity analysis).
pub(crate) fn for_each_operand(e: &Expression, f: &mut impl FnMut(Handle<Expression>)) {
    match e {
        Expression::Compose { components, .. } => components.iter().copied().for_each(f),
        Expression::Access { base, index } => {
            f(*base);
            f(*index)
        }
        Expression::AccessIndex { base, .. } => f(*base),
        Expression::Splat { value, .. } => f(*value),
        Expression::Swizzle { vector, .. } => f(*vector),
        Expression::Unary { expr, .. } | Expression::As { expr, .. } => f(*expr),
        Expression::Binary { left, right, .. } => {
            f(*left);
            f(*right)
        }
        Expression::Select {
            condition,
            accept,
            reject,
        } => {
            f(*condition);
            f(*accept);
            f(*reject)
        }
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => {
            f(*arg);
            [arg1, arg2, arg3]
                .into_iter()
                .flatten()
                .copied()
                .for_each(f)
        }
        Expression::Relational { argument, .. } => f(*argument),
        _ => {}
    }
}

pub(super) fn literal(l: &naga::Literal) -> R<Val> {
    use naga::Literal as L;
    Ok(Val::scalar(match l {
        L::F32(x) => x.to_bits(),
        L::U32(x) => *x,
        L::I32(x) => *x as u32,
        L::Bool(x) => *x as u32,
        L::AbstractInt(x) => *x as i32 as u32,
        L::AbstractFloat(x) => (*x as f32).to_bits(),
        other => return Err(unsupported(format!("the literal {other:?}"))),
    }))
}

/// Expressions with no memory or invocation behind them, shared by module-scope constants and
/// function bodies. `get` gives an operand's value, `ty` its type.
pub(super) fn pure<'a>(
    p: &Program<'a>,
    e: &Expression,
    get: &dyn Fn(Handle<Expression>) -> R<Val>,
    ty: &dyn Fn(Handle<Expression>) -> &'a TypeInner,
) -> R<Val> {
    Ok(match e {
        Expression::Literal(l) => literal(l)?,
        Expression::ZeroValue(t) => Val::from_words(&vec![0; p.words_of(*t)? as usize]),
        Expression::Compose { ty: t, components } => {
            let mut words = vec![0u32; p.words_of(*t)? as usize];
            match &p.types()[*t].inner {
                TypeInner::Struct { members, .. } => {
                    for (m, c) in members.iter().zip(components) {
                        let v = get(*c)?;
                        let at = (m.offset / 4) as usize;
                        words[at..at + v.words().len()].copy_from_slice(v.words());
                    }
                }
                TypeInner::Array { stride, .. } => {
                    for (i, c) in components.iter().enumerate() {
                        let v = get(*c)?;
                        let at = i * (*stride as usize / 4);
                        words[at..at + v.words().len()].copy_from_slice(v.words());
                    }
                }
                TypeInner::Matrix { rows, .. } => {
                    let col = if *rows as u32 == 3 { 4 } else { *rows as usize };
                    for (i, c) in components.iter().enumerate() {
                        let v = get(*c)?;
                        words[i * col..i * col + v.words().len()].copy_from_slice(v.words());
                    }
                }
                _ => {
                    words.clear();
                    for c in components {
                        words.extend_from_slice(get(*c)?.words());
                    }
                }
            }
            Val::from_words(&words)
        }
        Expression::Splat { size, value } => {
            let v = get(*value)?.first();
            Val::from_words(&vec![v; *size as usize])
        }
        Expression::Swizzle {
            size,
            vector,
            pattern,
        } => {
            let v = get(*vector)?;
            let w: Vec<u32> = pattern[..*size as usize]
                .iter()
                .map(|c| v.words()[*c as usize])
                .collect();
            Val::from_words(&w)
        }
        Expression::AccessIndex { base, index } => element(p, get(*base)?, ty(*base), *index)?,
        Expression::Access { base, index } => {
            let i = get(*index)?.first();
            element(p, get(*base)?, ty(*base), i)?
        }
        Expression::Unary { op, expr } => {
            let k = kind_of(ty(*expr))?;
            let v = get(*expr)?;
            let w: Vec<u32> = v.words().iter().map(|x| value::unary(*op, k, *x)).collect();
            Val::from_words(&w)
        }
        Expression::Binary { op, left, right } => {
            let (lt, rt) = (ty(*left), ty(*right));
            if matches!(lt, TypeInner::Matrix { .. }) || matches!(rt, TypeInner::Matrix { .. }) {
                return Err(unsupported("matrix arithmetic"));
            }
            let k = kind_of(lt)?;
            let (l, r) = (get(*left)?, get(*right)?);
            let (lw, rw) = (l.words(), r.words());
            let n = lw.len().max(rw.len());
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let a = lw[if lw.len() == 1 { 0 } else { i }];
                let b = rw[if rw.len() == 1 { 0 } else { i }];
                out.push(
                    value::binary(*op, k, a, b)
                        .ok_or_else(|| unsupported(format!("{op:?} on {k:?}")))?,
                );
            }
            Val::from_words(&out)
        }
        Expression::Select {
            condition,
            accept,
            reject,
        } => {
            let c = get(*condition)?;
            let (a, b) = (get(*accept)?, get(*reject)?);
            if c.words().len() == 1 {
                if c.first() != 0 {
                    a
                } else {
                    b
                }
            } else {
                let w: Vec<u32> = (0..a.words().len())
                    .map(|i| {
                        if c.words()[i] != 0 {
                            a.words()[i]
                        } else {
                            b.words()[i]
                        }
                    })
                    .collect();
                Val::from_words(&w)
            }
        }
        Expression::Relational { fun, argument } => {
            let v = get(*argument)?;
            let w = v.words();
            use naga::RelationalFunction as F;
            match fun {
                F::All => Val::scalar(w.iter().all(|x| *x != 0) as u32),
                F::Any => Val::scalar(w.iter().any(|x| *x != 0) as u32),
                F::IsNan => Val::from_words(
                    &w.iter()
                        .map(|x| f32::from_bits(*x).is_nan() as u32)
                        .collect::<Vec<_>>(),
                ),
                F::IsInf => Val::from_words(
                    &w.iter()
                        .map(|x| f32::from_bits(*x).is_infinite() as u32)
                        .collect::<Vec<_>>(),
                ),
            }
        }
        Expression::Math {
            fun,
            arg,
            arg1,
            arg2,
            ..
        } => {
            use naga::MathFunction as M;
            let k = kind_of(ty(*arg))?;
            let a = get(*arg)?;
            let b = arg1.map(get).transpose()?;
            let c = arg2.map(get).transpose()?;
            let pick = |v: &Option<Val>, i: usize| {
                v.as_ref()
                    .map(|v| v.words()[if v.words().len() == 1 { 0 } else { i }])
                    .unwrap_or(0)
            };
            match fun {
                M::Dot => {
                    let b = b.expect("dot has two arguments");
                    if k == Kind::F32 {
                        let s: f32 = a
                            .words()
                            .iter()
                            .zip(b.words())
                            .map(|(x, y)| f32::from_bits(*x) * f32::from_bits(*y))
                            .sum();
                        Val::scalar(s.to_bits())
                    } else {
                        let s = a
                            .words()
                            .iter()
                            .zip(b.words())
                            .fold(0u32, |s, (x, y)| s.wrapping_add(x.wrapping_mul(*y)));
                        Val::scalar(s)
                    }
                }
                M::Length => {
                    let s: f32 = a.words().iter().map(|x| f32::from_bits(*x).powi(2)).sum();
                    Val::scalar(s.sqrt().to_bits())
                }
                _ => {
                    let mut out = Vec::with_capacity(a.words().len());
                    for (i, x) in a.words().iter().enumerate() {
                        out.push(
                            value::math(*fun, k, *x, pick(&b, i), pick(&c, i))
                                .ok_or_else(|| unsupported(format!("the builtin {fun:?}")))?,
                        );
                    }
                    Val::from_words(&out)
                }
            }
        }
        Expression::As {
            expr,
            kind,
            convert,
        } => {
            let from = kind_of(ty(*expr))?;
            let to = scalar_kind(naga::Scalar {
                kind: *kind,
                width: convert.unwrap_or(4).max(1),
            })
            .or_else(|_| {
                if *kind == naga::ScalarKind::Bool {
                    Ok(Kind::Bool)
                } else {
                    Err(unsupported("a conversion to a 64- or 16-bit type"))
                }
            })?;
            let v = get(*expr)?;
            if convert.is_none() {
                v // bitcast: the same words
            } else {
                let w: Vec<u32> = v
                    .words()
                    .iter()
                    .map(|x| value::convert(from, to, *x))
                    .collect();
                Val::from_words(&w)
            }
        }
        other => return Err(unsupported(format!("the expression {other:?}"))),
    })
}

/// Element `i` of a value of type `t` (a vector, array, matrix or struct).
pub(super) fn element(p: &Program, v: Val, t: &TypeInner, i: u32) -> R<Val> {
    let (at, n) = match t {
        TypeInner::Vector { .. } => (i, 1),
        TypeInner::Matrix { rows, .. } => {
            let col = if *rows as u32 == 3 { 4 } else { *rows as u32 };
            (i * col, *rows as u32)
        }
        TypeInner::Array { base, stride, .. } => (i * stride / 4, p.words_of(*base)?),
        TypeInner::Struct { members, .. } => {
            let m = &members[i as usize];
            (m.offset / 4, p.words_of(m.ty)?)
        }
        other => return Err(unsupported(format!("indexing {other:?}"))),
    };
    let w = v.words();
    let (at, n) = (at as usize, n as usize);
    if at + n > w.len() {
        // Out of bounds on a value (a let-bound array or vector): zero, and reported by the
        // caller when the index is dynamic.
        return Ok(Val::from_words(&vec![0; n]));
    }
    Ok(Val::from_words(&w[at..at + n]))
}

/// A module-scope (constant or override) expression's value.
pub(super) fn global_value(p: &mut Program, h: Handle<Expression>) -> R<Val> {
    if let Some(v) = &p.consts[h.index()] {
        return Ok(v.clone());
    }
    let e = &p.module.global_expressions[h];
    let v = match e {
        Expression::Constant(c) => global_value(p, p.module.constants[*c].init)?,
        Expression::Override(o) => match &p.overrides[o.index()] {
            Some(v) => v.clone(),
            None => {
                let init = p.module.overrides[*o].init.ok_or_else(|| {
                    TraceError::Setup(format!(
                        "override {} has no value and no default",
                        p.module.overrides[*o].name.as_deref().unwrap_or("?")
                    ))
                })?;
                let v = global_value(p, init)?;
                p.overrides[o.index()] = Some(v.clone());
                v
            }
        },
        _ => {
            let mut operands = Vec::new();
            let mut err = None;
            let mut each = |x: Handle<Expression>| {
                operands.push(x);
            };
            for_each_operand(e, &mut each);
            for x in operands {
                if let Err(e) = global_value(p, x) {
                    err = Some(e);
                }
            }
            if let Some(e) = err {
                return Err(e);
            }
            let this = &*p;
            pure(
                this,
                e,
                &|x| Ok(this.consts[x.index()].clone().expect("operand evaluated")),
                &|x| this.global_ty(x),
            )?
        }
    };
    p.consts[h.index()] = Some(v.clone());
    Ok(v)
}
