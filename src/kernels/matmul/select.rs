//! Which variant a call gets for its shape: the autotuner's cached winner for this adapter and
//! shape bucket when `tilekit tune` has measured one, else the planner's rules below.

use super::{Precision, Shape, Variant};
use crate::{Error, Gpu, Result};
use serde::Serialize;

/// Who chose a run's variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChosenBy {
    /// The caller named it.
    Caller,
    /// The autotuner's cache (`tilekit tune`) for this adapter and shape bucket.
    Tuner,
    /// The planner's rules for the shape.
    Planner,
}

/// A variant chosen for a shape.
#[derive(Clone, Debug)]
pub struct Choice {
    /// The variant.
    pub variant: Variant,
    /// Who chose it.
    pub chosen_by: ChosenBy,
    /// The autotuner's tile for it (`None`: the planner picks the tile at launch).
    pub tile: Option<String>,
}

/// Up to this many rows of A the small-M kernel (`gemv`) is chosen: on the H100 it reads B at
/// 0.9-1.5 TB/s at M = 1, and from M = 16 the pipelined kernel with split-K is faster
/// (BENCHMARKS.md, the matmul sweep).
pub const GEMV_MAX_M: u32 = 8;

impl Gpu {
    /// The variant for `shape` at `precision`: the autotuner's cached winner when there is one
    /// for this adapter and shape bucket, else the planner's rules: the fastest kernel that
    /// fits this adapter for shapes like this one.
    pub fn choose_matmul(&self, shape: Shape, precision: Precision) -> Result<Choice> {
        if let Some((variant, tile)) = self.tuned(shape, precision) {
            return Ok(Choice {
                variant,
                chosen_by: ChosenBy::Tuner,
                tile,
            });
        }
        Ok(Choice {
            variant: self.planner_choice(shape, precision)?,
            chosen_by: ChosenBy::Planner,
            tile: None,
        })
    }

    /// The planner's rules alone (no autotuner): the first variant in the order for shapes like
    /// this one that fits this adapter.
    pub fn planner_choice(&self, shape: Shape, precision: Precision) -> Result<Variant> {
        let order: &[Variant] = match precision {
            // A few rows of A: the product is bound by reading B once (the small-M kernel).
            Precision::F32 if shape.m <= GEMV_MAX_M => &[
                Variant::GEMV,
                Variant::PIPELINED,
                Variant::TILED,
                Variant::NAIVE,
            ],
            Precision::F32 => &[
                Variant::PIPELINED,
                Variant::BLOCKED,
                Variant::TILED,
                Variant::NAIVE,
            ],
            // f16: the small-M kernel reads B once at half the bytes; otherwise the matrix
            // units where the adapter has them, else f16 storage with f32 arithmetic.
            Precision::F16 if shape.m <= GEMV_MAX_M => {
                &[Variant::GEMV_F16, Variant::COOP, Variant::PIPELINED_F16]
            }
            Precision::F16 => &[Variant::COOP, Variant::PIPELINED_F16, Variant::GEMV_F16],
        };
        let mut why = Vec::new();
        for v in order {
            match self.matmul_plan(*v, shape, None, None) {
                Ok(_) => return Ok(*v),
                Err(e) => why.push(format!("{v}: {e}")),
            }
        }
        Err(Error::Unsupported {
            what: format!("a {precision:?} matmul"),
            adapter: self.summary.name.clone(),
            missing: why.join("; "),
        })
    }

    /// The autotuner's winner for this shape's bucket on this adapter, if `tilekit tune` measured
    /// one (read once per `Gpu` from the cache file; the `cli` feature's).
    fn tuned(&self, shape: Shape, precision: Precision) -> Option<(Variant, Option<String>)> {
        #[cfg(feature = "cli")]
        {
            let table = self.tuning.get_or_init(|| {
                super::tune::load(self)
                    .into_iter()
                    .map(|(bucket, w)| (bucket, w.variant, w.tile))
                    .collect()
            });
            let key = super::tune::bucket(shape, precision);
            let (_, name, tile) = table.iter().find(|(b, _, _)| *b == key)?;
            let v = Variant::parse(name).ok()?;
            // A winner this adapter can no longer plan (a changed limit) is passed over.
            self.matmul_plan(v, shape, tile.as_deref(), None).ok()?;
            Some((v, tile.clone()))
        }
        #[cfg(not(feature = "cli"))]
        {
            let _ = (shape, precision);
            None
        }
    }
}
