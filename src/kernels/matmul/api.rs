//! The matmul's library calls on [`Gpu`]: host slices or device buffers, the kernel a
//! [`Selection`] resolves to ([`Gpu::select_matmul`], once per call), f16 compute of f32 data,
//! and one submission per call.

use super::support::{self, Types};
use super::{Chosen, Element, MatmulRun, Operands, Precision, Scratch, Selection, Shape};
use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::{Error, Gpu, Measured, Result, Timing};

/// One product as it will be submitted: the operands, the resolved choice, and steps recorded in
/// front (f16 compute: the conversions).
struct Call<'a, T, O> {
    io: (
        &'a DeviceBuffer<T>,
        &'a DeviceBuffer<T>,
        &'a DeviceBuffer<O>,
    ),
    shape: Shape,
    chosen: Chosen,
    pre: Vec<Step>,
}

impl<'a, T, O> Call<'a, T, O> {
    /// A call with nothing recorded in front.
    fn new(
        io: (
            &'a DeviceBuffer<T>,
            &'a DeviceBuffer<T>,
            &'a DeviceBuffer<O>,
        ),
        shape: Shape,
        chosen: Chosen,
    ) -> Self {
        Call {
            io,
            shape,
            chosen,
            pre: Vec::new(),
        }
    }
}

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

    /// C = A·B on device buffers (no readback) with the kernel `selection` resolves to.
    pub fn matmul_on_device<'a, T: Element>(
        &'a self,
        a: &'a DeviceBuffer<T>,
        b: &'a DeviceBuffer<T>,
        c: &'a DeviceBuffer<T>,
        shape: Shape,
        selection: &'a Selection,
    ) -> crate::Call<'a, MatmulRun> {
        crate::Call::new(async move {
            let chosen = self.select_matmul(shape, T::PRECISION, selection)?;
            let call = Call::new((a, b, c), shape, chosen);
            Ok(self.submit_matmul(call, false, true).await?.0)
        })
    }

    /// C = A·B on device buffers, queued: not waited for, as a CUDA launch (or PyTorch's
    /// `a @ b`) returns before the GPU is done. Calls run in the order they were queued, each
    /// seeing what the ones before it wrote, so products can be chained (C of one the A of the
    /// next) while the host records the next. A call is submitted at once while the GPU has no
    /// queued work left, else held with those that follow until it has, at most eight to a
    /// submission (each submission costs the host and the GPU time: BENCHMARKS.md, "Queued
    /// products"); a read
    /// ([`Gpu::read`]), any call that waits, [`Gpu::synchronize`] and [`Gpu::flush`] submit what
    /// is held. Bad input is refused here, before anything is recorded; an error of the GPU's
    /// while running comes back from the next wait. Returns what was chosen (no figures: nothing
    /// was timed).
    pub fn matmul_queue<'a, T: Element>(
        &'a self,
        a: &'a DeviceBuffer<T>,
        b: &'a DeviceBuffer<T>,
        c: &'a DeviceBuffer<T>,
        shape: Shape,
        selection: &'a Selection,
    ) -> crate::Call<'a, Chosen> {
        crate::Call::new(async move {
            let chosen = self.select_matmul(shape, T::PRECISION, selection)?;
            let call = Call::new((a, b, c), shape, chosen.clone());
            let (steps, scratch, _) = self.launch_call(call).await?;
            self.enqueue(&steps).await?;
            // Back to the pool before the GPU has read them: see Gpu::enqueue.
            drop(scratch);
            Ok(chosen)
        })
    }

    /// C = A·B on device buffers, and C read back in the same submission (one wait per call:
    /// the least a whole call can cost). Untimed by the GPU: the run's timing is the wall clock
    /// of the submission and its wait ([`crate::Clock::WallClock`]); [`Gpu::matmul_on_device`]
    /// and [`Gpu::measure_matmul`] give the kernels' own time.
    pub fn matmul_read<'a, T: Element>(
        &'a self,
        a: &'a DeviceBuffer<T>,
        b: &'a DeviceBuffer<T>,
        c: &'a DeviceBuffer<T>,
        shape: Shape,
        selection: &'a Selection,
    ) -> crate::Call<'a, (Vec<T>, MatmulRun)> {
        crate::Call::new(async move { self.read_product((a, b, c), shape, selection, false).await })
    }

    /// A product read back in its own submission, timed by the GPU's timestamps or not.
    async fn read_product<T: Element>(
        &self,
        io: (&DeviceBuffer<T>, &DeviceBuffer<T>, &DeviceBuffer<T>),
        shape: Shape,
        selection: &Selection,
        timed: bool,
    ) -> Result<(Vec<T>, MatmulRun)> {
        let chosen = self.select_matmul(shape, T::PRECISION, selection)?;
        let call = Call::new(io, shape, chosen);
        let (run, data) = self.submit_matmul(call, true, timed).await?;
        Ok((data.unwrap_or_default(), run))
    }

    /// Time `selection` on device buffers warm, as back-to-back launches
    /// ([`crate::measure::Repeat::BackToBack`]: C is the same however often it runs), and read C
    /// back as f32: how the tour's lessons and the autotuner measure a kernel.
    pub(crate) fn measure_matmul<'a, T: Element>(
        &'a self,
        (a, b, c): (
            &'a DeviceBuffer<T>,
            &'a DeviceBuffer<T>,
            &'a DeviceBuffer<T>,
        ),
        shape: Shape,
        selection: &'a Selection,
    ) -> crate::Call<'a, (Measured<MatmulRun>, Vec<f32>)> {
        crate::Call::new(async move {
            let run = self
                .measure(
                    crate::Repeat::BackToBack,
                    async || self.matmul_on_device(a, b, c, shape, selection).await,
                    |r| r.timing.seconds,
                )
                .await?;
            let out = self.read(c).await?.into_iter().map(T::to_f32).collect();
            Ok((run, out))
        })
    }

    /// The call checked and launched: its steps (the call's own in front), the scratch buffers
    /// to keep until they have run, and its run's figures once timed.
    async fn launch_call<T: Element, O: Element>(
        &self,
        call: Call<'_, T, O>,
    ) -> Result<(Vec<Step>, Scratch, impl FnOnce(Timing) -> MatmulRun)> {
        let (a, b, c) = call.io;
        let Chosen {
            variant,
            plan,
            chosen_by,
        } = call.chosen;
        let shape = call.shape;
        self.check_lengths(shape, [a.len(), b.len(), c.len()])?;
        let k = variant.imp();
        let types = Types {
            elem: T::PRECISION,
            out: O::PRECISION,
        };
        if !support::types_of(k.precision()).contains(&types) {
            return Err(Error::InvalidArgument {
                what: format!(
                    "{} operands and a {} result for the {variant} matmul",
                    T::PRECISION.name(),
                    O::PRECISION.name()
                ),
                why: format!("it takes {} matrices", k.precision().name()),
            });
        }
        let io = Operands {
            a: a.bind(),
            b: b.bind(),
            c: c.bind(),
            types,
        };
        let launch = k.launch(self, io, shape, plan.as_deref()).await?;
        let steps: Vec<Step> = call.pre.into_iter().chain(launch.steps).collect();
        let global_loads = k.global_loads(shape, plan.as_deref());
        let (tile, dispatch, splits) = (launch.tile, launch.dispatch, launch.splits);
        let run = move |timing| MatmulRun {
            variant,
            precision: T::PRECISION,
            shape,
            tile,
            plan,
            dispatch,
            splits: splits.0,
            k_split: splits.1,
            chosen_by,
            flops: shape.flops(),
            global_loads,
            global_bytes: T::PRECISION.bytes() * global_loads
                + O::PRECISION.bytes() * shape.m as u64 * shape.n as u64,
            ratio: shape.flops() as f64 / global_loads.max(1) as f64,
            timing,
        };
        Ok((steps, launch.scratch, run))
    }

    /// The call's steps in one submission and one wait, C read back in it or not, timed by the
    /// GPU's timestamps (the run's figures: [`Gpu::matmul_on_device`], the command line's
    /// [`Gpu::matmul`]) or by the wall clock only, for a call that wants the answer
    /// (`Gpu::matmul`, `Gpu::matmul_read`): resolving the queries, copying them out and mapping
    /// them a second time is a large part of a small call (BENCHMARKS.md, "The per-call tax").
    async fn submit_matmul<T: Element, O: Element>(
        &self,
        call: Call<'_, T, O>,
        read: bool,
        timed: bool,
    ) -> Result<(MatmulRun, Option<Vec<O>>)> {
        let c = call.io.2;
        let (steps, scratch, run) = self.launch_call(call).await?;
        let (timing, data) = if read {
            let (t, data) = self
                .execute_and_read_as::<O>(&steps, c.raw(), c.bytes(), timed)
                .await?;
            (t, Some(data))
        } else {
            (self.execute_timed(&steps, timed).await?, None)
        };
        drop(scratch);
        Ok((run(timing), data))
    }

    /// C = A·B for row-major host slices (A m×k, B k×n) with the kernel `selection` resolves
    /// to (`Selection::Auto`: this adapter's tuned winner, else the planner's choice); returns C
    /// and the run's figures (timed by the GPU's timestamps where it has them). Data used again
    /// can stay on the GPU: [`Gpu::matmul_on_device`], [`Gpu::matmul_queue`].
    pub fn matmul<'a, T: Element>(
        &'a self,
        a: &'a [T],
        b: &'a [T],
        (m, k, n): (usize, usize, usize),
        selection: &'a Selection,
    ) -> crate::Call<'a, (Vec<T>, MatmulRun)> {
        crate::Call::new(async move {
            self.product_of_slices(a, b, (m, k, n), selection, true)
                .await
        })
    }

    /// Upload A and B, multiply, read C back: timed by the GPU or not (`submit_matmul`).
    async fn product_of_slices<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        (m, k, n): (usize, usize, usize),
        selection: &Selection,
        timed: bool,
    ) -> Result<(Vec<T>, MatmulRun)> {
        let shape = Shape::new(m, k, n)?;
        self.check_lengths(shape, [a.len(), b.len(), m * n])?;
        self.check_buffer::<T>("matrix C", m * n)?;
        let da = self.upload("matrix A", a).await?;
        let db = self.upload("matrix B", b).await?;
        let dc = self.alloc::<T>("matrix C", m * n).await?;
        self.read_product((&da, &db, &dc), shape, selection, timed)
            .await
    }

    /// f16 compute of f32 operands on the device, C read back in the same submission or not:
    /// the conversions, the product and the read in one submission and one wait.
    async fn f16_product(
        &self,
        (a, b, c): (&DeviceBuffer<f32>, &DeviceBuffer<f32>, &DeviceBuffer<f32>),
        shape: Shape,
        selection: &Selection,
        read: bool,
    ) -> Result<(MatmulRun, Option<Vec<f32>>)> {
        self.check_lengths(shape, [a.len(), b.len(), c.len()])?;
        let chosen = self.select_matmul(shape, Precision::F16, selection)?;
        let (a16, conv_a) = self.to_f16_step(a).await?;
        let (b16, conv_b) = self.to_f16_step(b).await?;
        let call = Call {
            io: (&a16, &b16, c),
            shape,
            chosen,
            pre: vec![conv_a, conv_b],
        };
        self.submit_matmul(call, read, true).await
    }

    /// C = A·B computed in f16 for f32 host slices: A and B converted to f16 on the GPU
    /// ([`Gpu::to_f16`]), multiplied by the f16 kernel `selection` resolves to (the matrix units
    /// where the adapter has them) with f32 accumulation, C read back as f32. Each input is
    /// rounded to f16 once (11 significant bits), so an element's error is about 2⁻¹⁰·Σ|a·b| on
    /// top of the f32 bound. Values that f16 cannot hold (|x| > 65,504, or NaN) are refused with
    /// the index of the first.
    pub fn matmul_f16<'a>(
        &'a self,
        a: &'a [f32],
        b: &'a [f32],
        (m, k, n): (usize, usize, usize),
        selection: &'a Selection,
    ) -> crate::Call<'a, (Vec<f32>, MatmulRun)> {
        crate::Call::new(async move {
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
            let da = self.upload("matrix A", a).await?;
            let db = self.upload("matrix B", b).await?;
            let dc = self.alloc::<f32>("matrix C", m * n).await?;
            let (run, c) = self
                .f16_product((&da, &db, &dc), shape, selection, true)
                .await?;
            Ok((c.unwrap_or_default(), run))
        })
    }
}
