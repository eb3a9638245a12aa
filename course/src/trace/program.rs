//! The module being traced, with the constants the dispatch fixed: layout of its types, source
//! lines of its spans.

use super::value::{scalar_kind, Val};
use super::{unsupported, TraceError, R};
use naga::{Expression, Handle, TypeInner};

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

    pub(super) fn global_ty(&self, h: Handle<Expression>) -> &'m TypeInner {
        self.info[h].inner_with(self.types())
    }
}

pub(super) fn span_start(s: &naga::Span) -> u32 {
    s.to_range().map(|r| r.start as u32).unwrap_or(0)
}

impl Program<'_> {
    /// The value of a named constant or an override, as the dispatch fixed it.
    pub(super) fn fixed(&self, e: &Expression) -> Option<R<Val>> {
        match e {
            Expression::Constant(c) => Some(
                self.consts[self.module.constants[*c].init.index()]
                    .clone()
                    .ok_or_else(|| TraceError::Setup("a constant was not evaluated".into())),
            ),
            Expression::Override(o) => Some(
                self.overrides[o.index()]
                    .clone()
                    .ok_or_else(|| TraceError::Setup("an override has no value".into())),
            ),
            _ => None,
        }
    }
}
