//! The reduction's launches, prepared once per input buffer and kept in the pool's recipe cache
//! (the plan, the pipelines, the partial buffers and the bind groups), and running them: the
//! chain of launches of the lesson's variants, or one-pass's single launch.

use super::{module, Element, Op, ReduceTiling, Variant};
use crate::buffer::DeviceBuffer;
use crate::dispatch::Dispatch;
use crate::launch::{Step, Timing};
use crate::plan::Plan;
use crate::pool::{Detached, RecipeKey};
use crate::{Error, Gpu, Result};
use std::sync::Arc;

/// A prepared reduction of one input buffer (see `Gpu::reduce_recipe`).
pub(super) struct ReduceRecipe<T: Element> {
    _t: std::marker::PhantomData<fn() -> T>,
    pub(super) steps: Vec<Step>,
    /// Each launch's output; the last holds the one value.
    partials: Vec<Detached>,
    /// The global variant's in-place copy of the input.
    scratch: Option<Detached>,
    pub(super) bytes: u64,
    pub(super) workgroup: u32,
    pub(super) plan: Plan,
}

impl Gpu {
    /// The launches and the readback of a prepared reduction: one submission, one wait.
    pub(super) async fn run_recipe<T: Element>(
        &self,
        input: &DeviceBuffer<T>,
        recipe: &ReduceRecipe<T>,
        timed: bool,
    ) -> Result<(T, Timing)> {
        if let Some(s) = &recipe.scratch {
            self.copy_buffer(input.raw(), &s.buffer, input.bytes())
                .await?;
        }
        let last = recipe.partials.last().expect("one launch at least");
        let size = std::mem::size_of::<T>() as u64;
        let (timing, value) = self
            .execute_and_read_as::<T>(&recipe.steps, &last.buffer, size, timed)
            .await?;
        let result = *value.first().ok_or_else(|| Error::Gpu {
            context: "reading the reduction's value back".into(),
            message: "nothing was read".into(),
        })?;
        Ok((result, timing))
    }

    /// The launches that reduce `input` with `op` and `variant`, their partial buffers and bind
    /// groups: made on the first call for this buffer and these parameters, then taken from the
    /// recipe cache (the plan, the shaders' names and the bindings are not redone per call).
    pub(super) async fn reduce_recipe<T: Element>(
        &self,
        input: &DeviceBuffer<T>,
        op: Op,
        variant: Variant,
    ) -> Result<Arc<ReduceRecipe<T>>> {
        self.require(
            variant.needs(),
            &format!("the {} reduction", variant.name()),
        )?;
        // The global variant reduces a scratch copy in place: two calls must not share it.
        if variant == Variant::Global {
            return Ok(Arc::new(self.make_reduce_recipe(input, op, variant).await?));
        }
        let key = RecipeKey {
            family: "reduce",
            ty: std::any::TypeId::of::<T>(),
            buffers: vec![input.bind().id],
            params: vec![input.len() as u64, op.code() as u64, variant as u64],
        };
        if let Some(r) = self.pools.inner.recipe(&key) {
            return Ok(r);
        }
        let made = Arc::new(self.make_reduce_recipe(input, op, variant).await?);
        self.pools.inner.keep_recipe(key, made.clone());
        Ok(made)
    }

    async fn make_reduce_recipe<T: Element>(
        &self,
        input: &DeviceBuffer<T>,
        op: Op,
        variant: Variant,
    ) -> Result<ReduceRecipe<T>> {
        let n = input.len();
        let n32 = u32::try_from(n).map_err(|_| Error::SizeOverflow {
            what: "reduce input".into(),
            detail: format!("{n} elements"),
        })?;
        let plan = self.planner().plan(&ReduceTiling { n: n as u64 })?;
        let wg = variant.workgroup_size(plan.constant("WG"));
        if variant == Variant::Workgroup {
            let usage = crate::plan::KernelUse {
                invocations: 256,
                workgroup_bytes: 1024,
                registers: 16,
            };
            self.planner()
                .check("reduce workgroup 256", [256, 1, 1], usage)?;
        }
        let unroll = variant.unroll();
        let shader = module(T::WGSL, variant.subgroup()).shader;
        let all = variant.pipeline_constants(op, T::WGSL, wg);
        let pipeline = self.pipeline(&shader, variant.entry(), &all[0]).await?;
        let wide = variant.wide();
        let pipeline4 = match all.get(1) {
            Some(c4) => Some(self.pipeline(&shader, variant.entry(), c4).await?),
            None => None,
        };
        if variant == Variant::OnePass {
            return self.one_pass_recipe(input, n32, plan, wg, &pipeline).await;
        }

        // The global variant works in place: on a scratch copy of the input (copied per call).
        let scratch = if variant == Variant::Global {
            Some(self.alloc_uninit::<T>("reduce scratch", n).await?)
        } else {
            None
        };
        let mut buffers: Vec<DeviceBuffer<T>> = Vec::new();
        let mut steps = Vec::new();
        let mut len = n32;
        let mut bytes = 0u64;
        let size = std::mem::size_of::<T>() as u64;
        loop {
            let first = buffers.is_empty();
            let per_item = if wide && first { 4 * unroll } else { unroll };
            let items = (len as u64).div_ceil(per_item as u64);
            let groups = match variant {
                // A fixed number of workgroups, whatever the size (src/kernels/mod.rs).
                Variant::GridStride | Variant::Subgroup => {
                    self.grid_stride_groups(plan.choice().usage, items)
                }
                _ => u32::try_from(items.div_ceil(wg as u64)).expect("n < 2^32"),
            };
            // Every partial is written by its workgroup: no poison needed (and none of the
            // fill launches that would cost each call a round trip).
            let out = self
                .alloc_uninit::<T>("reduce partials", groups as usize)
                .await?;
            let (dispatch, params) = self.reduce_grid(len, groups)?;
            let src = buffers.last().unwrap_or(input);
            // Global binds its scratch; dynamic_tree and subgroup_tree bind the input twice
            // (scalar and vec4 views).
            let (p, bindings) = if variant == Variant::Global {
                let sc = buffers.last().or(scratch.as_ref()).expect("scratch");
                (
                    &pipeline,
                    vec![(1, out.bind()), (2, params.bind()), (3, sc.bind())],
                )
            } else if variant != Variant::Workgroup {
                let p = match (&pipeline4, first) {
                    (Some(p4), true) => p4,
                    _ => &pipeline,
                };
                let b = vec![
                    (0, src.bind()),
                    (1, out.bind()),
                    (2, params.bind()),
                    (4, src.bind()),
                ];
                (p, b)
            } else {
                (
                    &pipeline,
                    vec![(0, src.bind()), (1, out.bind()), (2, params.bind())],
                )
            };
            let step = Step::new(self, p, &bindings, dispatch).await?;
            steps.push(step);
            bytes += len as u64 * size + groups as u64 * size;
            buffers.push(out);
            len = groups;
            if groups == 1 {
                break;
            }
        }
        Ok(ReduceRecipe {
            _t: std::marker::PhantomData,
            steps,
            partials: buffers.into_iter().map(DeviceBuffer::detach).collect(),
            scratch: scratch.map(DeviceBuffer::detach),
            bytes,
            workgroup: wg,
            plan,
        })
    }

    /// One launch's grid, `groups` workgroups folded into 2-D, and its params block: the values
    /// it reduces and the workgroups with work (the fold may add a few).
    fn reduce_grid(&self, n: u32, groups: u32) -> Result<(Dispatch, crate::pool::Uniform)> {
        let dispatch = Dispatch::fold(
            "reduce",
            groups as u64,
            self.limits().max_compute_workgroups_per_dimension,
        )?;
        Ok((dispatch, self.params2(n, groups)))
    }

    /// The one-pass variant's single launch: a fixed number of workgroups (as grid-stride),
    /// their partials and count in `tally`, the value in a buffer of one element.
    async fn one_pass_recipe<T: Element>(
        &self,
        input: &DeviceBuffer<T>,
        n: u32,
        plan: Plan,
        wg: u32,
        pipeline: &Arc<wgpu::ComputePipeline>,
    ) -> Result<ReduceRecipe<T>> {
        let unroll = Variant::OnePass.unroll();
        let items = (n as u64).div_ceil(4 * unroll as u64);
        let groups = self.grid_stride_groups(plan.choice().usage, items);
        // Zeroed once: the count starts at 0, and the last workgroup of every call sets it
        // back to 0. Calls that share this launch share the count; wgpu orders their uses of
        // it (a read-write binding gets a barrier between one use and the next).
        let tally = self
            .zeros::<u32>("reduce tally", groups as usize + 1)
            .await?;
        let out = self.alloc_uninit::<T>("reduce value", 1).await?;
        let (dispatch, params) = self.reduce_grid(n, groups)?;
        let step = Step::new(
            self,
            pipeline,
            &[
                (0, input.bind()),
                (1, out.bind()),
                (2, params.bind()),
                (4, input.bind()),
                (5, tally.bind()),
            ],
            dispatch,
        )
        .await?;
        let size = std::mem::size_of::<T>() as u64;
        Ok(ReduceRecipe {
            _t: std::marker::PhantomData,
            steps: vec![step],
            // The value last: `run_recipe` reads it.
            partials: vec![tally.detach(), out.detach()],
            scratch: None,
            // The input, each partial written and read back, the value.
            bytes: n as u64 * size + 2 * groups as u64 * 4 + size,
            workgroup: wg,
            plan,
        })
    }
}
