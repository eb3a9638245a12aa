//! What the fast variants share: padding a ragged operand so that every row is a multiple of 4
//! floats (the kernels then keep 128-bit loads everywhere), split-K (how many slices of K a
//! launch needs to fill the GPU) and the pass that adds the slices' partial products into C.
//! Shader: `shaders/matmul_support.wgsl`, joined in front of each fast variant's own file.

use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::pipeline::Shader;
use crate::plan::cdiv;
use crate::pool::Bind;
use crate::{Gpu, Result};

/// The support passes' source, to join in front of a variant's shader.
pub(crate) const SOURCE: &str = include_str!("../../../shaders/matmul_support.wgsl");

/// Invocations per workgroup of `pad` and `sum_splits` (`SUPPORT_WG`).
const SUPPORT_WG: u64 = 256;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Four {
    a: u32,
    b: u32,
    c: u32,
    d: u32,
}

/// `x` rounded up to a multiple of 4.
pub(crate) fn round4(x: u32) -> u32 {
    x.div_ceil(4) * 4
}

/// A copy of the `rows`×`cols` matrix `src` as `rows_out`×`cols_out` (`cols_out` a multiple of
/// 4), zeros outside: the step and the buffer it writes (kept until the step has run).
pub(crate) fn pad(
    gpu: &Gpu,
    shader: &Shader,
    src: Bind<'_>,
    (rows, cols): (u32, u32),
    (rows_out, cols_out): (u32, u32),
) -> Result<(Step, DeviceBuffer<f32>)> {
    let len = rows_out as usize * cols_out as usize;
    let dst = gpu.alloc_uninit::<f32>("padded matmul operand", len)?;
    let params = gpu.uniform(&Four {
        a: rows,
        b: cols,
        c: rows_out,
        d: cols_out,
    });
    let step = gpu.step(
        shader,
        "pad",
        &[],
        &[(10, src), (11, dst.bind()), (12, params.bind())],
        cdiv(len as u64 / 4, SUPPORT_WG),
    )?;
    Ok((step, dst))
}

/// C (m×n) = the sum of `splits` partial products of m×`ld` floats each in `partials`.
pub(crate) fn sum_splits(
    gpu: &Gpu,
    shader: &Shader,
    partials: Bind<'_>,
    c: Bind<'_>,
    (m, n, ld): (u32, u32, u32),
    splits: u32,
) -> Result<Step> {
    let params = gpu.uniform(&Four {
        a: m,
        b: n,
        c: ld,
        d: splits,
    });
    gpu.step(
        shader,
        "sum_splits",
        &[],
        &[(13, partials), (14, c), (15, params.bind())],
        cdiv(m as u64 * ld as u64 / 4, SUPPORT_WG),
    )
}

/// How many slices of K to split a launch of `groups` workgroups into, so that it has about
/// `target` workgroups, each slice at least `min_k` deep; at most what keeps the partial
/// products (`splits` × `output_bytes`) within `max_binding` bytes.
pub(crate) fn split_k(
    groups: u64,
    k: u32,
    min_k: u32,
    target: u64,
    output_bytes: u64,
    max_binding: u64,
) -> u32 {
    if groups >= target {
        return 1;
    }
    let by_fill = cdiv(target, groups);
    let by_depth = (k / min_k.max(1)).max(1) as u64;
    let by_memory = (max_binding / output_bytes.max(1)).max(1);
    by_fill.min(by_depth).min(by_memory).min(1024) as u32
}

/// The multiprocessors to fill: the profile's count, else 16.
pub(crate) fn multiprocessors(gpu: &Gpu) -> u64 {
    gpu.profile.multiprocessors.unwrap_or(16).max(1) as u64
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
    /// C when one slice writes rows of exactly `n` floats, else a fresh partials buffer.
    pub(crate) fn new(gpu: &Gpu, m: u32, n: u32, ld: u32, splits: u32) -> Result<Output> {
        if splits == 1 && ld == n {
            return Ok(Output::Direct);
        }
        let len = splits as usize * m as usize * ld as usize;
        Ok(Output::Partials(
            gpu.alloc_uninit::<f32>("split-K partial products", len)?,
        ))
    }
}
