//! Values as the tracer holds them: every WGSL value the lessons use is made of 32-bit words
//! (f32, i32, u32, bool as 0 or 1), laid out as in memory, so a load or a store copies words and
//! an operator reads them as the operand's scalar kind says. A pointer names a memory and a word
//! offset into it.

use super::{unsupported, R};
use naga::TypeInner;
use std::rc::Rc;

/// Where a pointer points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Mem {
    /// A module-scope variable (storage, uniform, workgroup or private), by its index.
    Global(u32),
    /// A function's local variable: the frame's depth in the invocation's call stack, the variable.
    Local { frame: u32, var: u32 },
}

/// A pointer: a memory, the first word, and whether an index on the way was out of bounds (the
/// access then reads zero and writes nothing, WGSL's "read zero, skip write" policy).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ptr {
    pub mem: Mem,
    pub word: u32,
    pub out_of_bounds: bool,
}

/// A value: words, or a pointer.
#[derive(Clone, Debug)]
pub(super) enum Val {
    /// Up to four words (a scalar or a vector), inline.
    Small(u8, [u32; 4]),
    /// A struct or array value.
    Big(Rc<[u32]>),
    /// A pointer.
    Ptr(Ptr),
}

impl Val {
    pub fn scalar(w: u32) -> Val {
        Val::Small(1, [w, 0, 0, 0])
    }

    pub fn from_words(w: &[u32]) -> Val {
        if w.len() <= 4 {
            let mut a = [0; 4];
            a[..w.len()].copy_from_slice(w);
            Val::Small(w.len() as u8, a)
        } else {
            Val::Big(w.into())
        }
    }

    pub fn words(&self) -> &[u32] {
        match self {
            Val::Small(n, w) => &w[..*n as usize],
            Val::Big(w) => w,
            Val::Ptr(_) => &[],
        }
    }

    pub fn first(&self) -> u32 {
        self.words().first().copied().unwrap_or(0)
    }
}

/// The scalar kinds the tracer computes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    F32,
    U32,
    I32,
    Bool,
}

impl Kind {
    /// The kind of a naga scalar, or `None` for one the tracer does not run (f16, 64-bit).
    pub fn of(s: naga::Scalar) -> Option<Kind> {
        use naga::ScalarKind as K;
        match (s.kind, s.width) {
            (K::Float, 4) | (K::AbstractFloat, _) => Some(Kind::F32),
            (K::Uint, 4) => Some(Kind::U32),
            (K::Sint, 4) | (K::AbstractInt, _) => Some(Kind::I32),
            (K::Bool, _) => Some(Kind::Bool),
            _ => None,
        }
    }
}

fn f(w: u32) -> f32 {
    f32::from_bits(w)
}
fn fw(x: f32) -> u32 {
    x.to_bits()
}

/// `l op r` for one pair of components of kind `k`; `None` for an operator that kind lacks.
pub(super) fn binary(op: naga::BinaryOperator, k: Kind, l: u32, r: u32) -> Option<u32> {
    use naga::BinaryOperator as B;
    let b = |x: bool| x as u32;
    Some(match (op, k) {
        (B::Add, Kind::F32) => fw(f(l) + f(r)),
        (B::Subtract, Kind::F32) => fw(f(l) - f(r)),
        (B::Multiply, Kind::F32) => fw(f(l) * f(r)),
        (B::Divide, Kind::F32) => fw(f(l) / f(r)),
        (B::Modulo, Kind::F32) => fw(f(l) - f(r) * (f(l) / f(r)).trunc()),
        (B::Add, _) => l.wrapping_add(r),
        (B::Subtract, _) => l.wrapping_sub(r),
        (B::Multiply, _) => l.wrapping_mul(r),
        // WGSL: an integer divided by zero (or i32::MIN by -1) is the dividend; the remainder 0.
        (B::Divide, Kind::U32 | Kind::Bool) => l.checked_div(r).unwrap_or(l),
        (B::Divide, Kind::I32) => (l as i32).checked_div(r as i32).unwrap_or(l as i32) as u32,
        (B::Modulo, Kind::U32 | Kind::Bool) => l.checked_rem(r).unwrap_or(0),
        (B::Modulo, Kind::I32) => (l as i32).checked_rem(r as i32).unwrap_or(0) as u32,
        (B::Equal, Kind::F32) => b(f(l) == f(r)),
        (B::NotEqual, Kind::F32) => b(f(l) != f(r)),
        (B::Less, Kind::F32) => b(f(l) < f(r)),
        (B::LessEqual, Kind::F32) => b(f(l) <= f(r)),
        (B::Greater, Kind::F32) => b(f(l) > f(r)),
        (B::GreaterEqual, Kind::F32) => b(f(l) >= f(r)),
        (B::Less, Kind::I32) => b((l as i32) < (r as i32)),
        (B::LessEqual, Kind::I32) => b((l as i32) <= (r as i32)),
        (B::Greater, Kind::I32) => b((l as i32) > (r as i32)),
        (B::GreaterEqual, Kind::I32) => b((l as i32) >= (r as i32)),
        (B::Equal, _) => b(l == r),
        (B::NotEqual, _) => b(l != r),
        (B::Less, _) => b(l < r),
        (B::LessEqual, _) => b(l <= r),
        (B::Greater, _) => b(l > r),
        (B::GreaterEqual, _) => b(l >= r),
        (B::And | B::LogicalAnd, _) => l & r,
        (B::InclusiveOr | B::LogicalOr, _) => l | r,
        (B::ExclusiveOr, _) => l ^ r,
        (B::ShiftLeft, _) => l.wrapping_shl(r & 31),
        (B::ShiftRight, Kind::I32) => ((l as i32) >> (r & 31)) as u32,
        (B::ShiftRight, _) => l >> (r & 31),
    })
}

/// `op x` for one component.
pub(super) fn unary(op: naga::UnaryOperator, k: Kind, x: u32) -> u32 {
    use naga::UnaryOperator as U;
    match (op, k) {
        (U::Negate, Kind::F32) => fw(-f(x)),
        (U::Negate, _) => (x as i32).wrapping_neg() as u32,
        (U::LogicalNot, _) => (x == 0) as u32,
        (U::BitwiseNot, _) => !x,
    }
}

/// A value conversion `to(x)` from kind `from` (WGSL: float to integer rounds toward zero and
/// saturates; integer to integer keeps the bits).
pub(super) fn convert(from: Kind, to: Kind, x: u32) -> u32 {
    match (from, to) {
        (a, b) if a == b => x,
        (Kind::F32, Kind::U32) => f(x) as u32,
        (Kind::F32, Kind::I32) => f(x) as i32 as u32,
        (Kind::U32, Kind::F32) => fw(x as f32),
        (Kind::I32, Kind::F32) => fw(x as i32 as f32),
        (Kind::Bool, Kind::F32) => fw(x as f32),
        (_, Kind::Bool) => match from {
            Kind::F32 => (f(x) != 0.0) as u32,
            _ => (x != 0) as u32,
        },
        _ => x,
    }
}

/// A math builtin on one component (`a`, `b`, `c` are its arguments' components); `None` for a
/// function the tracer does not run.
pub(super) fn math(fun: naga::MathFunction, k: Kind, a: u32, b: u32, c: u32) -> Option<u32> {
    use naga::MathFunction as M;
    let fl = k == Kind::F32;
    Some(match fun {
        M::Abs if fl => fw(f(a).abs()),
        M::Abs if k == Kind::I32 => (a as i32).wrapping_abs() as u32,
        M::Abs => a,
        M::Min if fl => fw(f(a).min(f(b))),
        M::Min if k == Kind::I32 => (a as i32).min(b as i32) as u32,
        M::Min => a.min(b),
        M::Max if fl => fw(f(a).max(f(b))),
        M::Max if k == Kind::I32 => (a as i32).max(b as i32) as u32,
        M::Max => a.max(b),
        M::Clamp if fl => fw(f(a).max(f(b)).min(f(c))),
        M::Clamp if k == Kind::I32 => (a as i32).max(b as i32).min(c as i32) as u32,
        M::Clamp => a.max(b).min(c),
        M::Saturate => fw(f(a).clamp(0.0, 1.0)),
        M::Sign if fl => fw(if f(a) > 0.0 {
            1.0
        } else if f(a) < 0.0 {
            -1.0
        } else {
            0.0
        }),
        M::Sign => (a as i32).signum() as u32,
        M::Floor => fw(f(a).floor()),
        M::Ceil => fw(f(a).ceil()),
        M::Round => fw(f(a).round_ties_even()),
        M::Trunc => fw(f(a).trunc()),
        M::Fract => fw(f(a) - f(a).floor()),
        M::Sqrt => fw(f(a).sqrt()),
        M::InverseSqrt => fw(1.0 / f(a).sqrt()),
        M::Exp => fw(f(a).exp()),
        M::Exp2 => fw(f(a).exp2()),
        M::Log => fw(f(a).ln()),
        M::Log2 => fw(f(a).log2()),
        M::Pow => fw(f(a).powf(f(b))),
        M::Sin => fw(f(a).sin()),
        M::Cos => fw(f(a).cos()),
        M::Tan => fw(f(a).tan()),
        M::Tanh => fw(f(a).tanh()),
        M::Fma => fw(f(a).mul_add(f(b), f(c))),
        M::Mix => fw(f(a) * (1.0 - f(c)) + f(b) * f(c)),
        M::Step => fw(if f(b) >= f(a) { 1.0 } else { 0.0 }),
        M::CountOneBits => a.count_ones(),
        M::ReverseBits => a.reverse_bits(),
        M::CountLeadingZeros => a.leading_zeros(),
        M::CountTrailingZeros => a.trailing_zeros(),
        M::FirstTrailingBit => {
            if a == 0 {
                u32::MAX
            } else {
                a.trailing_zeros()
            }
        }
        M::FirstLeadingBit => {
            let v = if k == Kind::I32 && (a as i32) < 0 {
                !a
            } else {
                a
            };
            if v == 0 {
                u32::MAX
            } else {
                31 - v.leading_zeros()
            }
        }
        M::ExtractBits => {
            let (offset, count) = (b.min(32), c.min(32 - b.min(32)));
            if count == 0 {
                0
            } else {
                let v = a >> offset;
                let mask = if count == 32 {
                    u32::MAX
                } else {
                    (1 << count) - 1
                };
                if k == Kind::I32 && (v >> (count - 1)) & 1 == 1 {
                    v | !mask
                } else {
                    v & mask
                }
            }
        }
        _ => return None,
    })
}

pub(super) fn scalar_kind(s: naga::Scalar) -> R<Kind> {
    Kind::of(s).ok_or_else(|| {
        unsupported(format!(
            "{:?} values of {} bytes (the tracer runs 32-bit f32, i32, u32 and bool)",
            s.kind, s.width
        ))
    })
}

/// The scalar kind of a scalar or vector type.
pub(super) fn kind_of(t: &TypeInner) -> R<Kind> {
    match t {
        TypeInner::Scalar(s) | TypeInner::Vector { scalar: s, .. } | TypeInner::Atomic(s) => {
            scalar_kind(*s)
        }
        TypeInner::ValuePointer { scalar, .. } => scalar_kind(*scalar),
        other => Err(unsupported(format!("arithmetic on {other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::BinaryOperator as B;

    #[test]
    fn integer_division_by_zero_is_the_dividend_as_wgsl_says() {
        assert_eq!(binary(B::Divide, Kind::U32, 7, 0), Some(7));
        assert_eq!(binary(B::Modulo, Kind::U32, 7, 0), Some(0));
        let min = i32::MIN as u32;
        assert_eq!(binary(B::Divide, Kind::I32, min, -1i32 as u32), Some(min));
        assert_eq!(
            binary(B::ShiftRight, Kind::I32, -8i32 as u32, 1),
            Some(-4i32 as u32)
        );
        assert_eq!(convert(Kind::F32, Kind::U32, (-3.5f32).to_bits()), 0);
    }
}
