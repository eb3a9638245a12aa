//! The matmul's library calls on [`Gpu`]: host slices or device buffers, a variant chosen by
//! the caller, the autotuner or the planner, f16 compute of f32 data, and one submission per call.

use super::support::{self, Types};
use super::{select, Caps, Element, MatmulRun, Operands, Precision, Shape, Variant};
use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::plan::Plan;
use crate::{Error, Gpu, Result};

impl Gpu {
    fn check_lengths(&self, shape: Shape, lens: [usize; 3]) -> Result<()> {
        let Shape { m, k, n } = shape;
        for ((what, r, c), len) in [("A", m, k), ("B", k, n), ("C", m, n)]
            .into_iter()
            .zip(lens)
        {
            let expected = r as usize * c as usize;
            if len != expected {
                return Err(Error::mismatch(
                    format!("matrix {what} length for {r}×{c}"),
                    expected,
                    len,
                ));
            }
        }
        Ok(())
    }

    /// The plan `variant` launches `shape` with: `tile` forced by label, else the autotuner's
    /// cached choice when it picked this variant, else the planner's.
    pub(crate) fn matmul_plan(
        &self,
        variant: Variant,
        shape: Shape,
        tile: Option<&str>,
        tuned: Option<&str>,
    ) -> Result<Option<Plan>> {
        let k = variant.kernel();
        self.require(k.needs(), &format!("the {} matmul", k.name()))?;
        let Some(tiling) = k.tiling(shape, &Caps::of(self))? else {
            if let Some(t) = tile {
                return Err(Error::Usage(format!(
                    "the {} matmul has no tile to choose (got --tile {t})",
                    k.name()
                )));
            }
            return Ok(None);
        };
        let planner = self.planner();
        Ok(Some(match (tile, tuned) {
            (Some(t), _) => planner.plan_forced(tiling.as_ref(), t)?,
            (None, Some(t)) => planner
                .plan_tuned(tiling.as_ref(), t)
                .or_else(|_| planner.plan(tiling.as_ref()))?,
            (None, None) => planner.plan(tiling.as_ref())?,
        }))
    }

    /// C = A·B on device buffers (no readback), writing `c`. `tile` forces a planner candidate
    /// by label (e.g. `TILE=8`); `None` lets the planner (or the autotuner's cache) choose.
    pub fn matmul_on_device<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<MatmulRun> {
        self.matmul_chosen(a, b, c, shape, variant, tile, select::ChosenBy::Caller)
    }

    /// Time `variant` on device buffers warm ([`Gpu::measure`]) and read C back as f32: how the
    /// tour's lessons and the autotuner measure a candidate.
    #[cfg(feature = "cli")]
    pub(crate) fn matmul_steady<T: Element>(
        &self,
        (a, b, c): (&DeviceBuffer<T>, &DeviceBuffer<T>, &DeviceBuffer<T>),
        shape: Shape,
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<(crate::Measured<MatmulRun>, Vec<f32>)> {
        let run = self.measure(
            || self.matmul_on_device(a, b, c, shape, variant, tile),
            |r| r.timing.seconds,
        )?;
        let out = self.read(c)?.into_iter().map(T::to_f32).collect();
        Ok((run, out))
    }

    /// `matmul_on_device` for a variant chosen by `chosen_by` (`tile`: the tuner's, or forced).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn matmul_chosen<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        variant: Variant,
        tile: Option<&str>,
        chosen_by: select::ChosenBy,
    ) -> Result<MatmulRun> {
        Ok(self
            .matmul_submit(a, b, c, shape, variant, tile, chosen_by, false, Vec::new())?
            .0)
    }

    /// C = A·B on device buffers with the variant chosen for `shape`, and C read back in the same
    /// submission (one wait per call: the least a whole call can cost).
    pub fn matmul_read<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
    ) -> Result<(Vec<T>, MatmulRun)> {
        let choice = self.choose_matmul(shape, T::PRECISION)?;
        let (run, data) = self.matmul_submit(
            a,
            b,
            c,
            shape,
            choice.variant,
            choice.tile.as_deref(),
            choice.chosen_by,
            true,
            Vec::new(),
        )?;
        Ok((data.unwrap_or_default(), run))
    }

    #[allow(clippy::too_many_arguments)]
    fn matmul_submit<T: Element, O: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<O>,
        shape: Shape,
        variant: Variant,
        tile: Option<&str>,
        chosen_by: select::ChosenBy,
        read: bool,
        pre: Vec<Step>,
    ) -> Result<(MatmulRun, Option<Vec<O>>)> {
        self.check_lengths(shape, [a.len(), b.len(), c.len()])?;
        let k = variant.kernel();
        let types = Types {
            elem: T::PRECISION,
            out: O::PRECISION,
        };
        if !support::types_of(k.precision()).contains(&types) {
            return Err(Error::Usage(format!(
                "the {} matmul takes {:?} matrices, got {:?} operands and a {:?} result",
                k.name(),
                k.precision(),
                T::PRECISION,
                O::PRECISION,
            )));
        }
        // A tile from the autotuner's cache is planned as the tuner's choice, any other as forced.
        let plan = match chosen_by {
            select::ChosenBy::Tuner => self.matmul_plan(variant, shape, None, tile)?,
            _ => self.matmul_plan(variant, shape, tile, None)?,
        };
        let io = Operands {
            a: a.bind(),
            b: b.bind(),
            c: c.bind(),
            types,
        };
        let launch = k.launch(self, io, shape, plan.as_ref())?;
        // Steps the caller recorded in front (f16 compute: the conversions), one submission.
        let steps: Vec<Step> = pre.into_iter().chain(launch.steps).collect();
        let (timing, data) = if read {
            let (t, data) = self.execute_and_read_as::<O>(&steps, c.raw(), c.bytes(), true)?;
            (t, Some(data))
        } else {
            (self.execute(&steps)?, None)
        };
        drop(launch.scratch);
        let global_loads = k.global_loads(shape, plan.as_ref());
        let run = MatmulRun {
            variant,
            precision: T::PRECISION,
            shape,
            tile: launch.tile,
            plan,
            chosen_by,
            flops: shape.flops(),
            global_loads,
            global_bytes: T::PRECISION.bytes() * global_loads
                + O::PRECISION.bytes() * shape.m as u64 * shape.n as u64,
            ratio: shape.flops() as f64 / global_loads.max(1) as f64,
            timing,
        };
        Ok((run, data))
    }

    /// C = A·B for row-major host slices with a chosen variant; returns C and the run's figures.
    pub fn matmul_with<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        (m, k, n): (usize, usize, usize),
        variant: Variant,
        tile: Option<&str>,
    ) -> Result<(Vec<T>, MatmulRun)> {
        let shape = Shape::new(m, k, n)?;
        self.check_lengths(shape, [a.len(), b.len(), m * n])?;
        self.check_buffer::<T>("matrix C", m * n)?;
        let da = self.upload("matrix A", a)?;
        let db = self.upload("matrix B", b)?;
        let dc = self.alloc::<T>("matrix C", m * n)?;
        let run = self.matmul_on_device(&da, &db, &dc, shape, variant, tile)?;
        Ok((self.read(&dc)?, run))
    }

    /// C = A·B for row-major host slices (A m×k, B k×n) with the variant chosen for this shape
    /// ([`Gpu::choose_matmul`]).
    pub fn matmul(&self, a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Result<Vec<f32>> {
        Ok(self.matmul_auto(a, b, (m, k, n))?.0)
    }

    /// [`Gpu::matmul`] for any [`Element`], with the run's figures.
    pub fn matmul_auto<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        (m, k, n): (usize, usize, usize),
    ) -> Result<(Vec<T>, MatmulRun)> {
        let shape = Shape::new(m, k, n)?;
        self.check_lengths(shape, [a.len(), b.len(), m * n])?;
        let da = self.upload("matrix A", a)?;
        let db = self.upload("matrix B", b)?;
        let dc = self.alloc::<T>("matrix C", m * n)?;
        self.matmul_read(&da, &db, &dc, shape)
    }

    /// C = A·B computed in f16 for f32 operands on the device: A and B converted to f16 on the
    /// GPU ([`Gpu::to_f16`]), multiplied by the f16 kernel chosen for the shape (the matrix units
    /// where the adapter has them) with f32 accumulation, C written as f32. Each input is rounded
    /// to f16 once (11 significant bits), so an element's error is about 2⁻¹⁰·Σ|a·b| on top of
    /// the f32 bound; values beyond f16's range (±65,504) become infinities, so the host-slice
    /// form [`Gpu::matmul_f16`] refuses them.
    pub fn matmul_f16_on_device(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &DeviceBuffer<f32>,
        shape: Shape,
        variant: Option<Variant>,
        tile: Option<&str>,
    ) -> Result<MatmulRun> {
        self.check_lengths(shape, [a.len(), b.len(), c.len()])?;
        let (a16, conv_a) = self.to_f16_step(a)?;
        let (b16, conv_b) = self.to_f16_step(b)?;
        let (variant, chosen_by, tile) = match variant {
            Some(v) => (v, select::ChosenBy::Caller, tile.map(str::to_string)),
            None => {
                let ch = self.choose_matmul(shape, Precision::F16)?;
                (
                    ch.variant,
                    ch.chosen_by,
                    tile.map(str::to_string).or(ch.tile),
                )
            }
        };
        let (run, _) = self.matmul_submit(
            &a16,
            &b16,
            c,
            shape,
            variant,
            tile.as_deref(),
            chosen_by,
            false,
            vec![conv_a, conv_b],
        )?;
        Ok(run)
    }

    /// [`Gpu::matmul_f16_on_device`] for host slices: f32 in, f32 out, f16 compute. Values that
    /// f16 cannot hold (|x| > 65,504, or NaN) are refused with the index of the first.
    pub fn matmul_f16(
        &self,
        a: &[f32],
        b: &[f32],
        (m, k, n): (usize, usize, usize),
        variant: Option<Variant>,
        tile: Option<&str>,
    ) -> Result<(Vec<f32>, MatmulRun)> {
        let shape = Shape::new(m, k, n)?;
        self.check_lengths(shape, [a.len(), b.len(), m * n])?;
        for (what, data) in [("matrix A", a), ("matrix B", b)] {
            if let Some(i) = data.iter().position(|x| x.is_nan() || x.abs() > 65504.0) {
                return Err(Error::OutOfRange {
                    what: format!("{what} element {i} for f16 compute"),
                    value: data[i].to_string(),
                    limit: "f16's finite range ±65504".into(),
                });
            }
        }
        let da = self.upload("matrix A", a)?;
        let db = self.upload("matrix B", b)?;
        let dc = self.alloc::<f32>("matrix C", m * n)?;
        let run = self.matmul_f16_on_device(&da, &db, &dc, shape, variant, tile)?;
        Ok((self.read(&dc)?, run))
    }

    /// The variant [`Gpu::matmul`] uses for `shape` (f32).
    pub fn default_matmul_variant(&self, shape: Shape) -> Variant {
        self.choose_matmul(shape, Precision::F32)
            .map(|c| c.variant)
            .unwrap_or(Variant::NAIVE)
    }
}
