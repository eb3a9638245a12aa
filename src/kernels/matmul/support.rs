//! What the fast variants share: padding a ragged operand so that every row is a multiple of 4
//! floats (the kernels then keep 128-bit loads everywhere), or reading it in place (which is
//! decided in `in_place.rs`); stream-K's partial blocks; and the reuse a block of C achieves
//! (what the planner ranks blocks by where residency does not apply). The frame of a launch
//! around its main step is `frame.rs`.
//! Shader: `shaders/matmul_support.wgsl`, joined in front of each fast variant's own file, after
//! the prelude that names its element types ([`Types`]).

use super::in_place::InPlace;
use super::{Precision, Shape};
use crate::buffer::DeviceBuffer;
use crate::launch::Step;
use crate::pipeline::Shader;
use crate::plan::cdiv;
use crate::pool::Bind;
use crate::{Gpu, Result};

/// The loads a BM×BN block of C saves over the naive kernel (PMPP 4.2): each element of A and B
/// it loads serves 2·BM·BN/(BM+BN) multiply-adds, where the naive kernel's serves one.
pub(crate) fn block_reuse(bm: f64, bn: f64) -> f64 {
    2.0 * bm * bn / (bm + bn)
}

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
pub(crate) const SUPPORT_WG: u64 = 256;

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

/// One operand's copy: its source, its shape and the shape of the copy.
struct PadOf<'b> {
    src: Bind<'b>,
    from: (u32, u32),
    to: (u32, u32),
}

/// The buffer a copy of `to` (`rows_out`×`cols_out`, `cols_out` a multiple of 4) writes, and the
/// uniform that tells the shader both shapes.
async fn pad_target(
    gpu: &Gpu,
    elem: Precision,
    PadOf { from, to, .. }: &PadOf<'_>,
) -> Result<(Padded, crate::pool::Uniform, u64)> {
    let len = to.0 as usize * to.1 as usize;
    let what = "padded matmul operand";
    let dst = match elem {
        Precision::F32 => Padded::F32(gpu.alloc_uninit::<f32>(what, len).await?),
        Precision::F16 => Padded::F16(gpu.alloc_uninit::<half::f16>(what, len).await?),
    };
    let params = gpu.uniform(&Four {
        a: from.0,
        b: from.1,
        c: to.0,
        d: to.1,
    });
    Ok((dst, params, len as u64 / 4))
}

/// Copies of the `rows`×`cols` matrices given into `rows_out`×`cols_out` ones (`cols_out` a
/// multiple of 4), zeros outside: one step for one matrix (`pad`) or for two (`pad2`, which
/// saves the second launch's wait for the first), and the buffers it writes.
async fn pad(
    gpu: &Gpu,
    shader: &Shader,
    elem: Precision,
    first: PadOf<'_>,
    second: Option<PadOf<'_>>,
) -> Result<(Step, Padded, Option<Padded>)> {
    let (dst, params, mut vec4s) = pad_target(gpu, elem, &first).await?;
    let second = match second {
        Some(op) => {
            let (dst_b, params_b, n) = pad_target(gpu, elem, &op).await?;
            vec4s += n;
            Some((op.src, dst_b, params_b))
        }
        None => None,
    };
    let mut io = vec![(10, first.src), (11, dst.bind()), (12, params.bind())];
    let mut entry = "pad";
    if let Some((src, dst_b, params_b)) = &second {
        io.extend([(17, *src), (18, dst_b.bind()), (19, params_b.bind())]);
        entry = "pad2";
    }
    let step = gpu
        .step(shader, entry, &[], &io, cdiv(vec4s, SUPPORT_WG))
        .await?;
    Ok((step, dst, second.map(|(_, d, _)| d)))
}

/// Ragged K or N: the step that copies the ragged operands not read in place (`reads`) into rows
/// of 4 elements (zeros outside, fig 4.20) and the copies, for a variant whose loads are 4
/// elements wide: A to `k4` columns where K is ragged, B to `n4` columns where N is, both in one
/// launch where both are copied. Each keeps its rows: the main step reads K rows of B whatever
/// A's row length, so a ragged K alone leaves B where it lies (copying it too only cost time:
/// BENCHMARKS.md, "Ragged operands: copied or read in place").
pub(crate) async fn pad_operands(
    gpu: &Gpu,
    shader: &Shader,
    elem: Precision,
    (a, b): (Bind<'_>, Bind<'_>),
    shape: Shape,
    reads: InPlace,
    steps: &mut Vec<Step>,
) -> Result<(Option<Padded>, Option<Padded>)> {
    let Shape { m, k, n } = shape;
    let (k4, n4) = (round4(k), round4(n));
    let pad_a = (k4 != k && !reads.a).then_some(PadOf {
        src: a,
        from: (m, k),
        to: (m, k4),
    });
    let pad_b = (n4 != n && !reads.b).then_some(PadOf {
        src: b,
        from: (k, n),
        to: (k, n4),
    });
    Ok(match (pad_a, pad_b) {
        (Some(pa), pb) => {
            let (step, da, db) = pad(gpu, shader, elem, pa, pb).await?;
            steps.push(step);
            (Some(da), db)
        }
        (None, Some(pb)) => {
            let (step, db, _) = pad(gpu, shader, elem, pb, None).await?;
            steps.push(step);
            (None, Some(db))
        }
        (None, None) => (None, None),
    })
}

/// Stream-K's launches, in either form (the last wave's blocks in heads and tails, or every
/// block's slices in even shares): the main step at `entry` writes `blocks` partial blocks of
/// BM×BN f32 (binding 4) beside C, then `fixup` adds the pieces of the `summed` blocks into C.
pub(crate) struct PartialBlocks<'s> {
    /// The main step's entry point.
    pub(crate) entry: &'s str,
    /// The entry point that adds the pieces into C.
    pub(crate) fixup: &'s str,
    /// Partial blocks the main step writes.
    pub(crate) blocks: u64,
    /// Blocks of C the fixup covers.
    pub(crate) summed: u64,
}

/// The two steps of `pb`, from `main` with `plan`'s constants, A, B, C and the kernel's uniform
/// bound as `io` (bindings 0–3), and the partial blocks' buffer, to keep until they have run
/// ([`Frame::finish_steps`]).
pub(crate) async fn partial_block_steps(
    gpu: &Gpu,
    main: &Shader,
    plan: &crate::plan::Plan,
    io: [(u32, Bind<'_>); 4],
    pb: PartialBlocks<'_>,
) -> Result<(Vec<Step>, DeviceBuffer<f32>)> {
    let b = super::Block::of(plan);
    let block = b.bm as u64 * b.bn as u64;
    let parts = gpu
        .alloc_uninit::<f32>("stream-K partial blocks", (pb.blocks * block) as usize)
        .await?;
    let [a, b, c, u] = io;
    let io = [a, b, c, u, (4, parts.bind())];
    let main_step = gpu.planned_step(main, pb.entry, plan, &io).await?;
    let io = [c, u, (4, parts.bind())];
    // A vec4 of C per invocation, SUPPORT_WG to a workgroup, as the support passes.
    let fixup = gpu
        .step(
            main,
            pb.fixup,
            &plan.constants(),
            &io,
            cdiv(pb.summed * block / 4, SUPPORT_WG),
        )
        .await?;
    Ok((vec![main_step, fixup], parts))
}
