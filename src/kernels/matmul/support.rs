//! What the fast variants share: padding a ragged operand so that every row is a multiple of 4
//! floats (the kernels then keep 128-bit loads everywhere), split-K (how many slices of K a
//! launch needs to fill the GPU) and the pass that adds the slices' partial products into C.
//! Shader: `shaders/matmul_support.wgsl`, joined in front of each fast variant's own file, after
//! the prelude that names its element types ([`Types`]).

use super::{Precision, Shape};
use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::pipeline::Shader;
use crate::plan::{cdiv, Plan};
use crate::pool::Bind;
use crate::{Gpu, Result};

/// The support passes' source, to join in front of a variant's shader.
pub(crate) const SOURCE: &str = include_str!("../../../shaders/matmul_support.wgsl");

/// The element types a fast variant's module is built for: A and B (`Elem` in the shaders) and C
/// (`Out`). The partial products between split-K slices are f32 whatever they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types {
    /// A and B.
    pub elem: Precision,
    /// C.
    pub out: Precision,
}

impl Types {
    /// f32 in and out.
    pub const F32: Types = Types {
        elem: Precision::F32,
        out: Precision::F32,
    };
    /// f16 in and out (f32 accumulation).
    pub const F16: Types = Types {
        elem: Precision::F16,
        out: Precision::F16,
    };
    /// f16 operands, f32 result: f16 compute for a caller who keeps f32 data.
    pub const F16_F32: Types = Types {
        elem: Precision::F16,
        out: Precision::F32,
    };

    /// The WGSL in front of the support passes and a variant's file: the `enable` directives
    /// and the aliases `Elem`, `Elem4`, `Out`, `Out4`.
    pub(crate) fn prelude(self, coop: bool) -> String {
        let name = |p: Precision| match p {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
        };
        let mut s = String::new();
        if self.elem == Precision::F16 || self.out == Precision::F16 {
            s += "enable f16;\n";
        }
        if coop {
            s += "enable wgpu_cooperative_matrix;\n";
        }
        let (e, o) = (name(self.elem), name(self.out));
        s += &format!("alias Elem = {e};\nalias Elem4 = vec4<{e}>;\n");
        s += &format!("alias Out = {o};\nalias Out4 = vec4<{o}>;\n");
        s
    }

    /// A module name for `base` built with these types (`base` itself for f32).
    pub(crate) fn module_name(self, base: &str) -> String {
        if self == Types::F32 {
            return base.to_string();
        }
        format!("{base}<{:?},{:?}>", self.elem, self.out).to_lowercase()
    }

    /// The types of the module that writes f32 partial products for these.
    pub(crate) fn partials(self) -> Types {
        Types {
            elem: self.elem,
            out: Precision::F32,
        }
    }

    /// The features a module with these types needs.
    pub(crate) fn needs(self) -> wgpu::Features {
        if self == Types::F32 {
            wgpu::Features::empty()
        } else {
            wgpu::Features::SHADER_F16
        }
    }
}

/// The types a variant with `elem` operands is built for: f32 → f32; f16 → f16 or f32.
pub(crate) fn types_of(elem: Precision) -> &'static [Types] {
    match elem {
        Precision::F32 => &[Types::F32],
        Precision::F16 => &[Types::F16, Types::F16_F32],
    }
}

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

/// A padded operand of either element type, kept alive until its step has run.
pub(crate) enum Padded {
    /// f32 elements.
    F32(DeviceBuffer<f32>),
    /// f16 elements.
    F16(DeviceBuffer<half::f16>),
}

impl Padded {
    /// The buffer bound whole.
    pub(crate) fn bind(&self) -> Bind<'_> {
        match self {
            Padded::F32(b) => b.bind(),
            Padded::F16(b) => b.bind(),
        }
    }
}

/// A copy of the `rows`×`cols` matrix `src` (elements of `elem`) as `rows_out`×`cols_out`
/// (`cols_out` a multiple of 4), zeros outside: the step and the buffer it writes.
pub(crate) fn pad(
    gpu: &Gpu,
    shader: &Shader,
    elem: Precision,
    src: Bind<'_>,
    (rows, cols): (u32, u32),
    (rows_out, cols_out): (u32, u32),
) -> Result<(Step, Padded)> {
    let len = rows_out as usize * cols_out as usize;
    let what = "padded matmul operand";
    let dst = match elem {
        Precision::F32 => Padded::F32(gpu.alloc_uninit::<f32>(what, len)?),
        Precision::F16 => Padded::F16(gpu.alloc_uninit::<half::f16>(what, len)?),
    };
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

/// Split-K for a kernel of which `slots` workgroups run at once (multiprocessors × workgroups
/// resident on each, PMPP 4.7), counted in waves: with s splits the launch runs
/// ⌈groups·s / slots⌉ waves of workgroups doing 1/s of K each. The fewest splits whose time is
/// within 12% of the best any split count reaches: every split adds its partial product to
/// write and read back, and a launch that nearly fills the GPU gains nothing from two waves of
/// half the work (H100, BENCHMARKS.md: 2048³ f16 in 128×256 blocks, 128 workgroups on 132
/// multiprocessors, ran at 208 TFLOP/s unsplit against 139 in 3 splits). Within the depth and
/// memory bounds of [`split_k`], and at most 256 splits: `sum_splits` adds a partial per split
/// for every element of C, and for a small C over a very deep K that sum outgrows what more
/// splits save (H100, f32 64×65536×64 in 64×64 blocks: 10.8 TFLOP/s in 256 splits, 8.7 in 456).
pub(crate) fn split_k_waves(
    groups: u64,
    k: u32,
    min_k: u32,
    slots: u64,
    output_bytes: u64,
    max_binding: u64,
) -> u32 {
    let slots = slots.max(1);
    let most = ((k / min_k.max(1)).max(1) as u64)
        .min((max_binding / output_bytes.max(1)).max(1))
        .min(256);
    let waves = |s: u64| cdiv(groups.max(1) * s, slots) as f64 / s as f64;
    let best = (1..=most).map(waves).fold(f64::INFINITY, f64::min);
    (1..=most).find(|&s| waves(s) <= 1.12 * best).unwrap_or(1) as u32
}

/// [`split_k_waves`] for a launch of `groups` workgroups of `plan`'s choice on `gpu`: its slots
/// are the multiprocessors times the workgroups the plan says one of them holds.
pub(crate) fn split_k_resident(
    gpu: &Gpu,
    plan: &Plan,
    groups: u64,
    k: u32,
    min_k: u32,
    output_bytes: u64,
) -> u32 {
    let resident = plan.choice().residency.workgroups.max(1) as u64;
    split_k_waves(
        groups,
        k,
        min_k,
        resident * multiprocessors(gpu),
        output_bytes,
        gpu.limits().max_binding_bytes(),
    )
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
    /// C when one slice writes rows of exactly `n` elements, else a fresh partials buffer.
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

/// Ragged K or N: the steps that copy A and B into rows of 4 elements (zeros outside, fig 4.20)
/// and the copies, for a variant whose loads are 4 elements wide. A is padded to `k4` columns,
/// B to `k4` rows and `n4` columns.
pub(crate) fn pad_operands(
    gpu: &Gpu,
    shader: &Shader,
    elem: Precision,
    (a, b): (Bind<'_>, Bind<'_>),
    shape: Shape,
    steps: &mut Vec<Step>,
) -> Result<(Option<Padded>, Option<Padded>)> {
    let Shape { m, k, n } = shape;
    let (k4, n4) = (round4(k), round4(n));
    let pa = if k4 != k {
        let (s, buf) = pad(gpu, shader, elem, a, (m, k), (m, k4))?;
        steps.push(s);
        Some(buf)
    } else {
        None
    };
    let pb = if k4 != k || n4 != n {
        let (s, buf) = pad(gpu, shader, elem, b, (k, n), (k4, n4))?;
        steps.push(s);
        Some(buf)
    } else {
        None
    };
    Ok((pa, pb))
}

/// Every pipeline a fast variant with `elem` operands can launch: its `entry` at each of
/// `configs` (the planner's fitting candidates) and the support passes, for each output type.
pub(crate) fn pipelines(
    elem: Precision,
    module: fn(Types) -> crate::kernels::Module,
    entry: &str,
    configs: Vec<Vec<(String, f64)>>,
) -> Vec<crate::kernels::PipelineUse> {
    use crate::kernels::PipelineUse;
    let mut all = Vec::new();
    for types in types_of(elem) {
        let m = module(*types);
        all.extend(
            configs
                .iter()
                .map(|c| PipelineUse::new(&m, entry, c.clone())),
        );
        all.push(PipelineUse::new(&m, "pad", vec![]));
        all.push(PipelineUse::new(&m, "sum_splits", vec![]));
    }
    all
}

/// What the fast variants' launches share, around their own main step: A and B padded to rows
/// of 4 elements where K or N is ragged, the output (C itself, or f32 split-K partials that
/// `sum_splits` adds into C), and the assembly of the [`super::Launch`].
pub(crate) struct Frame<'a> {
    io: super::Operands<'a>,
    shape: Shape,
    module: fn(Types) -> crate::kernels::Module,
    /// The module with the call's element types (padding and the final sum).
    shader: Shader,
    steps: Vec<Step>,
    padded: (Option<Padded>, Option<Padded>),
    out: Option<Output>,
    splits: u32,
}

impl<'a> Frame<'a> {
    /// Pad the operands of `shape` (a step each, where needed).
    pub(crate) fn new(
        gpu: &Gpu,
        module: fn(Types) -> crate::kernels::Module,
        io: super::Operands<'a>,
        shape: Shape,
    ) -> Result<Frame<'a>> {
        let shader = module(io.types).shader;
        let mut steps = Vec::new();
        let padded = pad_operands(gpu, &shader, io.types.elem, (io.a, io.b), shape, &mut steps)?;
        Ok(Frame {
            io,
            shape,
            module,
            shader,
            steps,
            padded,
            out: None,
            splits: 1,
        })
    }

    /// Where the main step writes for `splits` slices of K with output rows of `ld` elements
    /// (C directly when there is one slice and `ld` is C's N): A, B, that output, and the module
    /// to launch the main step from (its output type f32 when it writes partials).
    pub(crate) fn output(
        &mut self,
        gpu: &Gpu,
        splits: u32,
        ld: u32,
    ) -> Result<(Bind<'_>, Bind<'_>, Bind<'_>, Shader)> {
        let Shape { m, n, .. } = self.shape;
        self.splits = splits;
        self.out = Some(Output::new(gpu, m, n, ld, splits)?);
        let a = self.padded.0.as_ref().map_or(self.io.a, |b| b.bind());
        let b = self.padded.1.as_ref().map_or(self.io.b, |b| b.bind());
        Ok(match self.out.as_ref().expect("set above") {
            Output::Direct => (a, b, self.io.c, self.shader.clone()),
            Output::Partials(p) => (
                a,
                b,
                p.bind(),
                (self.module)(self.io.types.partials()).shader,
            ),
        })
    }

    /// The launch: the padding, `main`, the sum of the partials into C; `label` (the plan's
    /// tile) with the split and the padding said.
    pub(crate) fn finish(mut self, gpu: &Gpu, main: Step, label: &str) -> Result<super::Launch> {
        let Shape { m, k, n } = self.shape;
        let n4 = round4(n);
        self.steps.push(main);
        let mut scratch: Vec<Box<dyn std::any::Any + Send>> = Vec::new();
        if let Some(Output::Partials(p)) = &self.out {
            self.steps.push(sum_splits(
                gpu,
                &self.shader,
                p.bind(),
                self.io.c,
                (m, n, n4),
                self.splits,
            )?);
        }
        let mut tile = label.to_string();
        if self.splits > 1 {
            tile += &format!(" split-K {}", self.splits);
        }
        if round4(k) != k || n4 != n {
            tile += " padded";
        }
        scratch.extend(self.padded.0.map(|b| Box::new(b) as _));
        scratch.extend(self.padded.1.map(|b| Box::new(b) as _));
        if let Some(Output::Partials(p)) = self.out {
            scratch.push(Box::new(p));
        }
        Ok(super::Launch {
            steps: self.steps,
            scratch,
            tile,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::split_k_waves;

    const BIG: u64 = 1 << 40;

    #[test]
    fn a_launch_that_nearly_fills_the_gpu_is_not_split() {
        // 2048³ in 128×256 blocks: 128 workgroups on 132 one-workgroup multiprocessors.
        assert_eq!(split_k_waves(128, 2048, 128, 132, 1 << 24, BIG), 1);
        assert_eq!(split_k_waves(1000, 4096, 128, 132, 1 << 24, BIG), 1);
    }

    #[test]
    fn a_small_launch_takes_the_fewest_splits_near_the_best_wave_count() {
        // 1000³: 32 blocks; 4 splits make 128 workgroups (one wave), 5 would make two.
        assert_eq!(split_k_waves(32, 1000, 128, 132, 1 << 22, BIG), 4);
        // 72 blocks: the best is 0.545 of a full-K wave (11 splits); 5 splits come within 12%
        // (0.6), 3 (0.67) and 4 (0.75) do not.
        assert_eq!(split_k_waves(72, 5000, 128, 132, 1 << 24, BIG), 5);
        // 16 blocks, deep K: 8 splits make 128 workgroups, one wave of an eighth.
        assert_eq!(split_k_waves(16, 4096, 128, 132, 1 << 21, BIG), 8);
    }

    #[test]
    fn splits_stay_within_the_depth_and_the_memory_bounds() {
        // One block, K of 3 slices' minimum depth: at most 3 splits.
        assert_eq!(split_k_waves(1, 384, 128, 132, 4, BIG), 3);
        // Partial products of 1 MiB each within a 2 MiB binding: at most 2.
        assert_eq!(split_k_waves(1, 1 << 20, 128, 132, 1 << 20, 2 << 20), 2);
        // One small block over a very deep K: never past 256 (the sum of the partials).
        assert!(split_k_waves(1, 65536, 128, 1056, 1 << 14, BIG) <= 256);
    }
}
