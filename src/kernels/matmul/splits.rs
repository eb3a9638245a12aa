//! Split-K's partial products and their sum into C: where a launch's output goes ([`Output`]:
//! C itself, or f32 partials), the second launch that adds them (`sum_splits`, in
//! `shaders/matmul_support.wgsl`), and the counts of a launch that adds its own splits
//! (`gemv_summed`: [`Tally`]). How many splits a shape gets is the planner's (`plan::split`).

use super::support::SUPPORT_WG;
use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::pipeline::Shader;
use crate::plan::cdiv;
use crate::pool::Bind;
use crate::{Gpu, Result};

/// The counts of a split-K launch that sums its own splits (`gemv_summed`), one per output block,
/// shared by every such launch on a `Gpu`: zeroed once and kept with the pool's recipes, since
/// each launch leaves them at zero (the last workgroup of a block sets its count back). Calls run
/// in queue order, and wgpu puts a barrier between one use of a read-write binding and the next
/// (also between the back-to-back copies of a timed run), so two launches never count in them at
/// once. A launch with more blocks than the kept counts makes larger ones.
pub(crate) struct Tally {
    blocks: usize,
    buffer: crate::pool::Detached,
}

impl Tally {
    pub(crate) fn bind(&self) -> Bind<'_> {
        Bind::whole(self.buffer.id, &self.buffer.buffer)
    }
}

/// Counts for at least `blocks` output blocks, all zero ([`Tally`]).
pub(crate) async fn split_tally(gpu: &Gpu, blocks: usize) -> Result<std::sync::Arc<Tally>> {
    let key = crate::pool::RecipeKey {
        family: "split-K tally",
        ty: std::any::TypeId::of::<u32>(),
        buffers: Vec::new(),
        params: Vec::new(),
    };
    if let Some(kept) = gpu.pools.inner.recipe::<Tally>(&key) {
        if kept.blocks >= blocks {
            return Ok(kept);
        }
    }
    // At least a page of counts, so that most launches share the first ones made.
    let blocks = blocks.max(1024);
    let made = std::sync::Arc::new(Tally {
        blocks,
        buffer: gpu.zeros::<u32>("split-K tally", blocks).await?.detach(),
    });
    gpu.pools.inner.keep_recipe(key, made.clone());
    Ok(made)
}

/// `sum_splits`' parameters (the shader's `SumParams`).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct SumParams {
    m: u32,
    n: u32,
    ld: u32,
    splits: u32,
    lanes: u32,
    _pad: [u32; 3],
}

/// Invocations a sum of `splits` partials aims to keep busy: about a GPU's worth (the H100 holds
/// 132 × 2,048), past which each element's partials are summed by one invocation.
const SUM_INVOCATIONS: u64 = 1 << 17;

/// The invocations that add each element's partials side by side in `sum_splits`: 1 while the
/// `vec4s` elements of 4 floats give the sum enough invocations, else doubled until they do, at
/// most 64 and at most the splits (each lane then adds at least one partial).
pub(crate) fn sum_lanes(vec4s: u64, splits: u32) -> u32 {
    let mut lanes = 1u32;
    while lanes < 64 && 2 * lanes <= splits && vec4s * (lanes as u64) < SUM_INVOCATIONS {
        lanes *= 2;
    }
    lanes
}

/// C (m×n) = the sum of `splits` partial products of m×`ld` floats each in `partials`.
pub(crate) async fn sum_splits(
    gpu: &Gpu,
    shader: &Shader,
    partials: Bind<'_>,
    c: Bind<'_>,
    (m, n, ld): (u32, u32, u32),
    splits: u32,
) -> Result<Step> {
    let vec4s = m as u64 * ld as u64 / 4;
    let lanes = sum_lanes(vec4s, splits);
    let params = gpu.uniform(&SumParams {
        m,
        n,
        ld,
        splits,
        lanes,
        _pad: [0; 3],
    });
    // C in vec4s where its rows are the partials' (N a multiple of 4), else element by element.
    let (entry, out) = if ld == n {
        ("sum_splits4", 16)
    } else {
        ("sum_splits", 14)
    };
    gpu.step(
        shader,
        entry,
        &[],
        &[(13, partials), (out, c), (15, params.bind())],
        cdiv(vec4s, SUPPORT_WG / lanes as u64),
    )
    .await
}

/// Where a variant's output goes: C itself, or the split-K / padded partials that `sum_splits`
/// adds into C.
pub(crate) enum Output {
    /// Straight into C.
    Direct,
    /// Into these `splits` partial products of m×ld.
    Partials(DeviceBuffer<f32>),
}

impl Output {
    /// C when one slice writes rows of exactly `n` elements, else a fresh partials buffer.
    pub(crate) async fn new(gpu: &Gpu, m: u32, n: u32, ld: u32, splits: u32) -> Result<Output> {
        if splits == 1 && ld == n {
            return Ok(Output::Direct);
        }
        Ok(Output::Partials(partials(gpu, splits, m, ld).await?))
    }
}

/// A fresh buffer for `splits` partial products of m×`ld` f32 each.
pub(crate) async fn partials(gpu: &Gpu, splits: u32, m: u32, ld: u32) -> Result<DeviceBuffer<f32>> {
    let len = splits as usize * m as usize * ld as usize;
    gpu.alloc_uninit::<f32>("split-K partial products", len)
        .await
}

#[cfg(test)]
mod tests {
    use super::sum_lanes;

    #[test]
    fn a_small_sum_over_many_splits_gets_lanes() {
        // f32 64×65536×64 in 228 splits: 1,024 elements of 4 floats, 64 lanes each.
        assert_eq!(sum_lanes(1024, 228), 64);
        // Never more lanes than splits.
        assert_eq!(sum_lanes(1024, 3), 2);
        assert_eq!(sum_lanes(1024, 1), 1);
        // A C of 8192×64 (131,072 elements of 4) fills the GPU alone: one lane.
        assert_eq!(sum_lanes(131_072, 4), 1);
        // 64×4096 in 11 splits: 65,536 elements, 2 lanes.
        assert_eq!(sum_lanes(65_536, 11), 2);
        for (v, s) in [(1, 300), (77, 5), (5000, 64), (1 << 20, 2)] {
            let l = sum_lanes(v, s);
            assert!(
                l.is_power_of_two() && l <= 64 && (l == 1 || l <= s),
                "{v} {s}"
            );
        }
    }
}
