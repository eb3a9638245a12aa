//! Which kernel a matmul call runs, decided once per call: the caller's [`Selection`] resolved
//! into a [`Chosen`] (the variant, its plan, and who chose them). The rules, in one place:
//!
//! - [`Selection::Auto`]: the autotuner's winner for this adapter and shape bucket, with its tile,
//!   when `tilekit tune` measured one and this adapter can still plan it (its cache is read once
//!   per [`Gpu`], [`super::tune`]); else the winner `tilekit tune` measured on a GPU of the same
//!   device profile, shipped with tilekit ([`super::tune::measured_defaults`]), for shapes near
//!   the one it was measured at; else the
//!   planner's rules: the first variant in the order for shapes like this one that fits the
//!   adapter, with the planner's tile.
//! - [`Selection::Variant`]: that variant, with the planner's tile.
//! - [`Selection::Forced`]: that variant with that [`Tile`] (a typed error if it has no such
//!   tile or the adapter cannot hold it).
//!
//! Tiles travel as [`Tile`]s, the constants the launch sets; a label (`TILE=16`, `64x64x8`) is
//! the command line's name for one, turned into a [`Selection`] by [`selection_named`].

use super::{Precision, Shape, Variant};
use crate::plan::{ChosenBy, Plan, Rates, Tile};
use crate::{Error, Gpu, Result};
use std::sync::Arc;

/// What a caller asks of a matmul call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    /// The autotuner's cached winner, else the planner's rules.
    #[default]
    Auto,
    /// This variant, with the planner's tile.
    Variant(Variant),
    /// This variant with this tile (a whole tile, or the part of one that picks it:
    /// `Tile::of([("BM", 64), ("BN", 64), ("BK", 8)])`).
    Forced {
        /// The variant.
        variant: Variant,
        /// The tile.
        tile: Tile,
    },
}

/// A selection resolved for one shape: the variant, its plan (`None` for a variant with no tile
/// to choose) and who chose the variant.
#[derive(Clone, Debug)]
pub struct Chosen {
    /// The variant.
    pub variant: Variant,
    /// Its plan (shared with the plans the [`crate::Gpu`] holds); the plan's own `chosen_by`
    /// says who chose the tile.
    pub plan: Option<Arc<Plan>>,
    /// Who chose the variant: the caller, the autotuner's cache or the planner's rules.
    pub chosen_by: ChosenBy,
}

/// Up to this many rows of A the small-M kernel (`gemv`) is chosen: it reads B near the copy
/// ceiling at one row, at 16 rows it still beats the pipelined kernel and is level with the
/// cooperative one, and from 24 rows the cooperative kernel's blocks take over (BENCHMARKS.md,
/// "The small-M kernel").
pub const GEMV_MAX_M: u32 = 16;

/// In f16, where the adapter has the matrix units, the small-M kernel keeps only up to this many
/// rows: from 9 to 16 the cooperative kernel's 32×512 block is the faster, at 8 rows it is not
/// (BENCHMARKS.md, "The small-M kernel").
pub const GEMV_F16_MAX_M_BESIDE_COOP: u32 = 8;

impl Gpu {
    /// Resolve `selection` for `shape` at `precision`: the variant, its plan and who chose them
    /// (see the module's rules). Nothing is built or launched.
    pub(crate) fn select_matmul(
        &self,
        shape: Shape,
        precision: Precision,
        selection: &Selection,
    ) -> Result<Chosen> {
        let chosen = |variant, plan, chosen_by| Chosen {
            variant,
            plan,
            chosen_by,
        };
        match selection {
            Selection::Auto => {
                if let Some(c) = self.tuned(shape, precision) {
                    return Ok(c);
                }
                let v = self.planner_choice(shape, precision)?;
                Ok(chosen(
                    v,
                    self.plan_matmul(v, shape, None)?,
                    ChosenBy::Planner,
                ))
            }
            Selection::Variant(v) => Ok(chosen(
                *v,
                self.plan_matmul(*v, shape, None)?,
                ChosenBy::Caller,
            )),
            Selection::Forced { variant, tile } => Ok(chosen(
                *variant,
                self.plan_matmul(*variant, shape, Some((tile, ChosenBy::Forced)))?,
                ChosenBy::Caller,
            )),
        }
    }

    /// The selection the command line means by `--variant` and `--tile LABEL`, each optional:
    /// the label turned into that variant's [`Tile`]; without a variant, the variant `Auto`
    /// picks if the label is one of its candidates, else the first variant at this precision
    /// that has it. A typed error lists every variant's labels.
    pub(crate) fn selection_named(
        &self,
        shape: Shape,
        precision: Precision,
        variant: Option<Variant>,
        label: Option<&str>,
    ) -> Result<Selection> {
        let Some(label) = label else {
            return Ok(variant.map_or(Selection::Auto, Selection::Variant));
        };
        let order = match variant {
            Some(v) => vec![v],
            None => {
                let auto = self.select_matmul(shape, precision, &Selection::Auto)?;
                let mut order = vec![auto.variant];
                order.extend(
                    Variant::all().filter(|v| v.precision() == precision && *v != auto.variant),
                );
                order
            }
        };
        let mut labels = Vec::new();
        for v in order.iter().copied() {
            let tiling = match v.tiling(shape, &self.caps()) {
                Ok(Some(t)) => t,
                Ok(None) if variant.is_some() => {
                    return Err(Error::InvalidArgument {
                        what: format!("tile {label} for the {v} matmul"),
                        why: "it has no tile to choose".into(),
                    })
                }
                _ => continue,
            };
            match self.planner().tile_named(tiling.as_ref(), label) {
                Ok(tile) => return Ok(Selection::Forced { variant: v, tile }),
                Err(Error::UnknownTile { choices, .. }) => {
                    labels.push(format!("{v}: {}", choices.join(" ")))
                }
                Err(e) => return Err(e),
            }
        }
        Err(Error::UnknownTile {
            kernel: match variant {
                Some(v) => format!("{v} matmul"),
                None => format!("{} matmul (every variant)", precision.name()),
            },
            got: label.to_string(),
            choices: labels,
        })
    }

    /// The planner's rules alone (no autotuner): the first variant in the order for shapes like
    /// this one that fits this adapter.
    pub(crate) fn planner_choice(&self, shape: Shape, precision: Precision) -> Result<Variant> {
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
            Precision::F16 if shape.m <= GEMV_F16_MAX_M_BESIDE_COOP => {
                &[Variant::GEMV_F16, Variant::COOP, Variant::PIPELINED_F16]
            }
            Precision::F16 if shape.m <= GEMV_MAX_M => {
                &[Variant::COOP, Variant::GEMV_F16, Variant::PIPELINED_F16]
            }
            Precision::F16 => &[Variant::COOP, Variant::PIPELINED_F16, Variant::GEMV_F16],
        };
        let mut why = Vec::new();
        for v in order {
            match self.plan_matmul(*v, shape, None) {
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

    /// `variant`'s plan for `shape`: the planner's choice, or the tile given with who chose it
    /// (forced by the caller, or the autotuner's). `None` for a variant with no tile to choose.
    pub(crate) fn plan_matmul(
        &self,
        variant: Variant,
        shape: Shape,
        tile: Option<(&Tile, ChosenBy)>,
    ) -> Result<Option<Arc<Plan>>> {
        self.require(variant.needs(), &format!("the {variant} matmul"))?;
        // Made once per variant, shape and tile: the same call in a loop plans once (a plan
        // held means its tiling was built without error before).
        let key = crate::gpu::PlanKey {
            kernel: variant.name(),
            sizes: [shape.m as u64, shape.k as u64, shape.n as u64],
            tile: tile.map(|(t, by)| (t.clone(), by)),
        };
        if let Some(plan) = self.held_plan(&key) {
            return Ok(Some(plan));
        }
        let Some(tiling) = variant.tiling(shape, &self.caps())? else {
            return match tile {
                Some((t, _)) => Err(Error::InvalidArgument {
                    what: format!("tile {t} for the {variant} matmul"),
                    why: "it has no tile to choose".into(),
                }),
                None => Ok(None),
            };
        };
        self.plan_once(key, || {
            let planner = self.planner().with_rates(self.measured_rates(variant));
            match tile {
                None => planner.plan(tiling.as_ref()),
                Some((t, by @ (ChosenBy::Tuner | ChosenBy::Measured))) => {
                    planner.plan_chosen(tiling.as_ref(), t, by)
                }
                Some((t, _)) => planner.plan_forced(tiling.as_ref(), t),
            }
        })
        .map(Some)
    }

    /// What `tilekit tune` left for this adapter (its cache, read once) and the measured defaults
    /// of its device profile.
    fn tuning(&self) -> Option<&super::tune::Tuning> {
        self.tuning
            .get_or_init(|| Box::new(super::tune::load(self)))
            .downcast_ref::<super::tune::Tuning>()
    }

    /// The measured rates `variant`'s candidates are scored with ([`super::tune::rates`]): this
    /// adapter's own where `tilekit tune` measured them, else its device profile's shipped ones;
    /// none elsewhere.
    pub(crate) fn measured_rates(&self, variant: Variant) -> Rates {
        self.tuning()
            .and_then(|t| t.rates.get(variant.name()))
            .cloned()
            .unwrap_or_default()
    }

    /// The autotuner's winner for this shape's bucket, planned: this adapter's own (its tuning
    /// cache, `tilekit tune`), else the measured defaults of its device profile shipped with
    /// tilekit where the shape is near the one they were measured at
    /// ([`super::tune::Winner::measured_near`]: elsewhere in the bucket the planner's wave model
    /// did better); `None` when neither applies or this adapter cannot plan the winner (a
    /// changed limit, a driver update that dropped a feature: then the planner decides).
    fn tuned(&self, shape: Shape, precision: Precision) -> Option<Chosen> {
        let tuning = self.tuning()?;
        let key = super::tune::TuneKey::of(shape, precision);
        [
            (&tuning.cache, ChosenBy::Tuner),
            (&tuning.measured, ChosenBy::Measured),
        ]
        .into_iter()
        .find_map(|(table, by)| {
            let w = table
                .get(&key)
                .filter(|w| by == ChosenBy::Tuner || w.measured_near(shape))?;
            // The cache names the tile by its label (the file's form): the tile it names.
            let plan = match &w.tile {
                Some(label) => {
                    let tiling = w.variant.tiling(shape, &self.caps()).ok()??;
                    let tile = self.planner().tile_named(tiling.as_ref(), label).ok()?;
                    self.plan_matmul(w.variant, shape, Some((&tile, by)))
                }
                None => self.plan_matmul(w.variant, shape, None),
            };
            match plan {
                Ok(plan) => Some(Chosen {
                    variant: w.variant,
                    plan,
                    chosen_by: by,
                }),
                Err(e) => {
                    // The user's own cache going stale is worth a warning; a shipped default
                    // that does not fit this adapter of the same class is not.
                    if by == ChosenBy::Tuner {
                        log::warn!(
                            "the tuning cache's {} for {shape} no longer plans here: {e}",
                            w.variant
                        );
                    } else {
                        log::debug!(
                            "the measured default {} for {shape} does not plan here: {e}",
                            w.variant
                        );
                    }
                    None
                }
            }
        })
    }
}

/// Resolve `selection` for `shape` at `precision` on `gpu`: the variant, its plan and who chose
/// them (see the module's rules). Nothing is built or launched.
pub fn select(
    gpu: &Gpu,
    shape: Shape,
    precision: Precision,
    selection: &Selection,
) -> Result<Chosen> {
    gpu.select_matmul(shape, precision, selection)
}

/// The selection the command line means by `--variant` and `--tile LABEL` on `gpu` (see
/// [`Gpu`]'s `selection_named` rules in this module): where a tile's label becomes a [`Tile`].
pub fn selection_named(
    gpu: &Gpu,
    shape: Shape,
    precision: Precision,
    variant: Option<Variant>,
    label: Option<&str>,
) -> Result<Selection> {
    gpu.selection_named(shape, precision, variant, label)
}

/// The planner's rules alone (no autotuner): the first variant in the order for shapes like this
/// one that fits `gpu`.
pub fn planner_choice(gpu: &Gpu, shape: Shape, precision: Precision) -> Result<Variant> {
    gpu.planner_choice(shape, precision)
}

/// `variant`'s plan for `shape` on `gpu`: the planner's choice, or the tile given with who chose
/// it (forced by the caller, or the autotuner's). `None` for a variant with no tile to choose.
pub fn plan(
    gpu: &Gpu,
    variant: Variant,
    shape: Shape,
    tile: Option<(&Tile, ChosenBy)>,
) -> Result<Option<Arc<Plan>>> {
    gpu.plan_matmul(variant, shape, tile)
}

/// The measured rates `variant`'s candidates are scored with on `gpu`: its own where `tilekit
/// tune` measured them, else its device profile's shipped ones; none elsewhere.
pub fn measured_rates(gpu: &Gpu, variant: Variant) -> Rates {
    gpu.measured_rates(variant)
}

#[cfg(test)]
mod tests {
    use crate::gpu::PLANS_HELD;
    use crate::kernels::matmul::{Shape, Variant};
    use crate::Gpu;

    /// A plan is made once per key, handed out shared (the same plan, not a copy of it), and the
    /// held plans stay bounded. Needs an adapter (lavapipe in CI).
    #[test]
    fn a_plan_is_made_once_per_key_and_the_held_plans_stay_bounded() {
        let gpu = Gpu::new().wait().expect("an adapter (lavapipe in CI)");
        let shape = Shape::new(300, 301, 302).unwrap();
        let plan = gpu
            .plan_matmul(Variant::PIPELINED, shape, None)
            .unwrap()
            .expect("the pipelined kernel plans");
        let again = gpu.plan_matmul(Variant::PIPELINED, shape, None).unwrap();
        assert!(std::sync::Arc::ptr_eq(&plan, again.as_ref().unwrap()));
        let plan = (*plan).clone();
        let key = |kernel: &'static str, i: u64| crate::gpu::PlanKey {
            kernel,
            sizes: [i, 0, 0],
            tile: None,
        };
        let made = std::cell::Cell::new(0);
        for _ in 0..3 {
            let held = gpu
                .plan_once(key("test", 0), || {
                    made.set(made.get() + 1);
                    Ok(plan.clone())
                })
                .unwrap();
            assert_eq!(held.choice().label, plan.choice().label);
        }
        assert_eq!(made.get(), 1);
        // An error is returned, not held: the next call plans again.
        let err = gpu.plan_once(key("failing", 0), || {
            Err(crate::Error::InvalidArgument {
                what: "nothing".into(),
                why: "a test".into(),
            })
        });
        assert!(err.is_err());
        assert!(gpu
            .plan_once(key("failing", 0), || Ok(plan.clone()))
            .is_ok());
        for i in 0..PLANS_HELD + 5 {
            gpu.plan_once(key("key", i as u64), || Ok(plan.clone()))
                .unwrap();
        }
        let held = gpu.plans.lock().unwrap().len();
        assert!((1..=PLANS_HELD).contains(&held), "{held}");
    }
}
