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

    /// Blocking [`Gpu::matmul_on_device_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_on_device<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<MatmulRun> {
        crate::gpu::block_on(self.matmul_on_device_async(a, b, c, shape, selection))
    }

    /// C = A·B on device buffers (no readback) with the kernel `selection` resolves to.
    pub async fn matmul_on_device_async<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<MatmulRun> {
        let chosen = self.select_matmul(shape, T::PRECISION, selection)?;
        let call = Call::new((a, b, c), shape, chosen);
        Ok(self.submit_matmul(call, false, true).await?.0)
    }

    /// Blocking [`Gpu::matmul_queue_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_queue<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<Chosen> {
        crate::gpu::block_on(self.matmul_queue_async(a, b, c, shape, selection))
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
    pub async fn matmul_queue_async<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<Chosen> {
        let chosen = self.select_matmul(shape, T::PRECISION, selection)?;
        let call = Call::new((a, b, c), shape, chosen.clone());
        let (steps, scratch, _) = self.launch_call(call).await?;
        self.enqueue(&steps).await?;
        // Back to the pool before the GPU has read them: see Gpu::enqueue.
        drop(scratch);
        Ok(chosen)
    }

    /// Blocking [`Gpu::matmul_read_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_read<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<(Vec<T>, MatmulRun)> {
        crate::gpu::block_on(self.matmul_read_async(a, b, c, shape, selection))
    }

    /// C = A·B on device buffers, and C read back in the same submission (one wait per call:
    /// the least a whole call can cost). Untimed by the GPU: the run's timing is the wall clock
    /// of the submission and its wait ([`crate::Clock::WallClock`]); [`Gpu::matmul_on_device`]
    /// and [`Gpu::measure_matmul`] give the kernels' own time.
    pub async fn matmul_read_async<T: Element>(
        &self,
        a: &DeviceBuffer<T>,
        b: &DeviceBuffer<T>,
        c: &DeviceBuffer<T>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<(Vec<T>, MatmulRun)> {
        self.read_product((a, b, c), shape, selection, false).await
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

    /// Blocking [`Gpu::measure_matmul_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn measure_matmul<T: Element>(
        &self,
        (a, b, c): (&DeviceBuffer<T>, &DeviceBuffer<T>, &DeviceBuffer<T>),
        shape: Shape,
        selection: &Selection,
    ) -> Result<(Measured<MatmulRun>, Vec<f32>)> {
        crate::gpu::block_on(self.measure_matmul_async((a, b, c), shape, selection))
    }

    /// Time `selection` on device buffers warm, as back-to-back launches
    /// ([`Gpu::measure_back_to_back_async`]: C is the same however often it runs), and read C
    /// back as f32: how the tour's lessons and the autotuner measure a kernel.
    pub async fn measure_matmul_async<T: Element>(
        &self,
        (a, b, c): (&DeviceBuffer<T>, &DeviceBuffer<T>, &DeviceBuffer<T>),
        shape: Shape,
        selection: &Selection,
    ) -> Result<(Measured<MatmulRun>, Vec<f32>)> {
        let run = self
            .measure_back_to_back_async(
                async || self.matmul_on_device_async(a, b, c, shape, selection).await,
                |r| r.timing.seconds,
            )
            .await?;
        let out = self
            .read_async(c)
            .await?
            .into_iter()
            .map(T::to_f32)
            .collect();
        Ok((run, out))
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
    /// [`Gpu::matmul_with`]) or by the wall clock only, for a call that wants the answer
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

    /// Blocking [`Gpu::matmul_with_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_with<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        (m, k, n): (usize, usize, usize),
        selection: &Selection,
    ) -> Result<(Vec<T>, MatmulRun)> {
        crate::gpu::block_on(self.matmul_with_async(a, b, (m, k, n), selection))
    }

    /// C = A·B for row-major host slices (A m×k, B k×n) with the kernel `selection` resolves
    /// to; returns C and the run's figures (timed by the GPU's timestamps where it has them).
    pub async fn matmul_with_async<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        (m, k, n): (usize, usize, usize),
        selection: &Selection,
    ) -> Result<(Vec<T>, MatmulRun)> {
        self.product_of_slices(a, b, (m, k, n), selection, true)
            .await
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
        let da = self.upload_async("matrix A", a).await?;
        let db = self.upload_async("matrix B", b).await?;
        let dc = self.alloc_async::<T>("matrix C", m * n).await?;
        self.read_product((&da, &db, &dc), shape, selection, timed)
            .await
    }

    /// Blocking [`Gpu::matmul_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul(&self, a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Result<Vec<f32>> {
        crate::gpu::block_on(self.matmul_async(a, b, m, k, n))
    }

    /// C = A·B for row-major host slices (A m×k, B k×n), with the kernel chosen for this shape
    /// (the autotuner's, else the planner's). The answer only: no timestamps are taken.
    pub async fn matmul_async(
        &self,
        a: &[f32],
        b: &[f32],
        m: usize,
        k: usize,
        n: usize,
    ) -> Result<Vec<f32>> {
        Ok(self
            .product_of_slices(a, b, (m, k, n), &Selection::Auto, false)
            .await?
            .0)
    }

    /// Blocking [`Gpu::matmul_f16_on_device_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_f16_on_device(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &DeviceBuffer<f32>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<MatmulRun> {
        crate::gpu::block_on(self.matmul_f16_on_device_async(a, b, c, shape, selection))
    }

    /// C = A·B computed in f16 for f32 operands on the device: A and B converted to f16 on the
    /// GPU ([`Gpu::to_f16`]), multiplied by the f16 kernel `selection` resolves to (the matrix
    /// units where the adapter has them) with f32 accumulation, C written as f32. Each input is
    /// rounded to f16 once (11 significant bits), so an element's error is about 2⁻¹⁰·Σ|a·b| on
    /// top of the f32 bound; values beyond f16's range (±65,504) become infinities, so the
    /// host-slice form [`Gpu::matmul_f16`] refuses them.
    pub async fn matmul_f16_on_device_async(
        &self,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: &DeviceBuffer<f32>,
        shape: Shape,
        selection: &Selection,
    ) -> Result<MatmulRun> {
        Ok(self
            .f16_product((a, b, c), shape, selection, false)
            .await?
            .0)
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

    /// Blocking [`Gpu::matmul_f16_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn matmul_f16(
        &self,
        a: &[f32],
        b: &[f32],
        (m, k, n): (usize, usize, usize),
        selection: &Selection,
    ) -> Result<(Vec<f32>, MatmulRun)> {
        crate::gpu::block_on(self.matmul_f16_async(a, b, (m, k, n), selection))
    }

    /// [`Gpu::matmul_f16_on_device`] for host slices: f32 in, f32 out, f16 compute. Values that
    /// f16 cannot hold (|x| > 65,504, or NaN) are refused with the index of the first.
    pub async fn matmul_f16_async(
        &self,
        a: &[f32],
        b: &[f32],
        (m, k, n): (usize, usize, usize),
        selection: &Selection,
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
        let da = self.upload_async("matrix A", a).await?;
        let db = self.upload_async("matrix B", b).await?;
        let dc = self.alloc_async::<f32>("matrix C", m * n).await?;
        let (run, c) = self
            .f16_product((&da, &db, &dc), shape, selection, true)
            .await?;
        Ok((c.unwrap_or_default(), run))
    }
}
