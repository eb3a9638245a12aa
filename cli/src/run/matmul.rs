//! `tilekit run matmul`: C = A·B on random data or `.npy` matrices, verified against the f64
//! reference. The result keeps NumPy's dtype for `A @ B` (float16 stays float16 and runs the f16
//! kernels; float64 is computed in float32 and written back as float64) and A's byte order.
//! Empty dimensions give NumPy's answer (zeros of M×N) without a launch; integer matrices are
//! refused.

use crate::npy::{Array, Data};
use crate::run::{random_f32, usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use half::f16;
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::matmul::{f16_input_bound, f32_bound, reference, Precision, Shape, Variant};
use tilekit::plan::ChosenBy;
use tilekit::Error;
use tilekit_course::units::{bytes, flops, time};

/// `tilekit run matmul`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// M K N: the sizes of random matrices A (M×K) and B (K×N); not with --a/--b.
    #[arg(value_name = "SIZE", num_args = 0..=3, value_parser = crate::run::size_arg)]
    sizes: Vec<usize>,
    /// A as a 2-D .npy file (float16, float32 or float64).
    #[arg(long, value_name = "A.npy", requires = "b")]
    a: Option<PathBuf>,
    /// B as a 2-D .npy file (float16, float32 or float64).
    #[arg(long, value_name = "B.npy", requires = "a")]
    b: Option<PathBuf>,
    /// The kernel (default: chosen for the shape by the autotuner's cache or the planner).
    #[arg(long)]
    variant: Option<String>,
    /// Force a planner candidate by label, e.g. TILE=8 or 128x128x16/8x8.
    #[arg(long)]
    tile: Option<String>,
    /// Element type of random matrices: f32, or f16 (f32 accumulation; needs SHADER_F16).
    #[arg(long, default_value = "f32", value_name = "f32|f16")]
    dtype: String,
    /// Compute f32 matrices in f16: A and B converted on the GPU, the f16 kernels (the matrix
    /// units where the adapter has them) with f32 accumulation, C kept in the input's dtype.
    #[arg(long, value_name = "f16")]
    compute: Option<String>,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "matmul",
    about: "C = A·B on random or .npy matrices, verified against the f64 CPU reference",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

/// The result dtype of `a @ b` in NumPy for the float types tilekit reads.
fn promote(a: &Data, b: &Data) -> Data {
    let rank = |d: &Data| match d {
        Data::F16(_) => 0,
        Data::F32(_) => 1,
        _ => 2,
    };
    if rank(a).max(rank(b)) == 0 {
        Data::F16(vec![])
    } else if rank(a).max(rank(b)) == 1 {
        Data::F32(vec![])
    } else {
        Data::F64(vec![])
    }
}

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    // The inputs as f32 values, the element type of the result, and the byte order.
    let (av, bv, (mm, kk, nn), like, big_endian) = match (&args.a, &args.b) {
        (Some(pa), Some(pb)) => {
            if !args.sizes.is_empty() {
                return Err(usage("give M K N or --a/--b, not both"));
            }
            if crate::run::given(m, "dtype") {
                return Err(usage(
                    "--dtype sets the element type of random matrices; --a/--b keep their files' dtype (f32 files in f16: --compute f16)",
                ));
            }
            let (a, b) = (ctx.input(pa)?, ctx.input(pb)?);
            let (m1, k1) = a.matrix(pa)?;
            let (k2, n2) = b.matrix(pb)?;
            if k1 != k2 {
                return Err(Error::DimensionMismatch {
                    what: format!("inner dimensions of {} and {}", pa.display(), pb.display()),
                    expected: format!("B with {k1} rows (A is {m1}×{k1})"),
                    got: format!("B is {k2}×{n2}"),
                }
                .into());
            }
            let av = ctx.floats(&a, pa, "matmul")?;
            let bv = ctx.floats(&b, pb, "matmul")?;
            (
                av,
                bv,
                (m1, k1, n2),
                promote(&a.data, &b.data),
                a.big_endian,
            )
        }
        _ => {
            let [m, k, n] = args.sizes[..] else {
                return Err(usage("run matmul needs M K N, or --a A.npy --b B.npy"));
            };
            let like = match args.dtype.as_str() {
                "f32" => Data::F32(vec![]),
                "f16" => Data::F16(vec![]),
                other => return Err(usage(format!("--dtype {other}: choose f32 or f16"))),
            };
            Shape::new(m, k, n)?;
            let gpu = ctx.gpu()?;
            gpu.limits().check_buffer::<f32>("matrix A", m * k)?;
            gpu.limits().check_buffer::<f32>("matrix B", k * n)?;
            let (mut a, mut b) = (random_f32(m * k, 1), random_f32(k * n, 2));
            if matches!(like, Data::F16(_)) {
                // Values f16 can hold exactly, so the reference sees what the kernel sees.
                for x in a.iter_mut().chain(b.iter_mut()) {
                    *x = f16::from_f32(*x).to_f32();
                }
            }
            (a, b, (m, k, n), like, false)
        }
    };
    let out_shape = vec![mm as u64, nn as u64];
    if mm == 0 || kk == 0 || nn == 0 {
        // NumPy's answer for an empty product: M×N zeros, no launch needed.
        let zeros = like.float_like(vec![0.0; mm * nn]);
        let out = Array {
            data: zeros,
            shape: out_shape,
            big_endian,
        };
        return Ok(Outcome {
            kernel: "matmul",
            text: format!(
                "matmul {mm}×{kk}×{nn}: empty, the result is {mm}×{nn} zeros (no launch)"
            ),
            fields: json!({"run": null})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            check: Check::Exact(out.clone()),
            output: Some(out),
        });
    }
    let gpu = ctx.gpu()?;
    let shape = Shape::new(mm, kk, nn)?;
    // f16 compute of wider data: the operands are rounded to f16 on the GPU.
    let compute_f16 = match args.compute.as_deref() {
        None => false,
        Some("f16") if !matches!(like, Data::F16(_)) => true,
        Some("f16") => false, // f16 data computes in f16 anyway
        Some(other) => {
            return Err(usage(format!(
                "--compute {other}: the choice is f16 (f32 data computed on the f16 kernels)"
            )))
        }
    };
    let precision = match like {
        Data::F16(_) => Precision::F16,
        _ if compute_f16 => Precision::F16,
        _ => Precision::F32,
    };
    // `--variant` and `--tile` as one selection, resolved once per call by the library.
    let variant = args.variant.as_deref().map(Variant::parse).transpose()?;
    let selection = tilekit::kernels::matmul::selection_named(
        gpu,
        shape,
        precision,
        variant,
        args.tile.as_deref(),
    )?;
    let (c, run) = match precision {
        Precision::F16 if compute_f16 => {
            ctx.warm(|| gpu.matmul_f16(&av, &bv, (mm, kk, nn), &selection).wait())?
        }
        Precision::F32 => ctx.warm(|| gpu.matmul(&av, &bv, (mm, kk, nn), &selection).wait())?,
        Precision::F16 => {
            let a16: Vec<f16> = av.iter().map(|&x| f16::from_f32(x)).collect();
            let b16: Vec<f16> = bv.iter().map(|&x| f16::from_f32(x)).collect();
            let (c, run) = ctx.warm(|| gpu.matmul(&a16, &b16, (mm, kk, nn), &selection).wait())?;
            (c.iter().map(|x| x.to_f32()).collect(), run)
        }
    };
    let out = Array {
        data: like.float_like(c),
        shape: out_shape.clone(),
        big_endian,
    };
    let common_verify = m.get_flag("verify");
    let check = if common_verify || (mm * kk * nn) <= 1 << 27 {
        let (exact, mag) = reference(&av, &bv, mm, kk, nn);
        let bound: Vec<f64> = exact
            .iter()
            .zip(&mag)
            .map(|(e, g)| {
                let b = f32_bound(kk, *g);
                match out.data {
                    // The result is rounded to f16 (11 significant bits) at the end.
                    Data::F16(_) => b + e.abs() * 2f64.powi(-11) + 2f64.powi(-24),
                    // Each operand rounded to f16 once: |a'b' - ab| <= 2^-9 |ab|.
                    _ if compute_f16 => b + f16_input_bound(*g),
                    _ => b,
                }
            })
            .collect();
        Check::Close {
            exact,
            bound,
            descr: out.descr(),
            shape: out_shape,
        }
    } else {
        Check::Skipped
    };
    let plan = run
        .plan
        .as_ref()
        .map(|p| p.table())
        .unwrap_or_else(|| format!("{}: no tile to choose\n", run.variant));
    // Who chose the tile, and who the variant where that was someone else (`--tile` forces a
    // tile in the variant the planner picks; `--variant` names a variant the planner tiles).
    let by = |who: ChosenBy| match who {
        ChosenBy::Forced => "forced".to_string(),
        ChosenBy::Measured => "chosen by the measured defaults".to_string(),
        _ => format!("chosen by the {who}"),
    };
    let chosen = match run.plan.as_ref().map(|p| p.chosen_by) {
        Some(tile_by) if tile_by != run.chosen_by => {
            format!(" {}, the variant {}", by(tile_by), by(run.chosen_by))
        }
        _ => format!(", {}", by(run.chosen_by)),
    };
    let text = format!(
        "matmul {shape} {} {}{} ({}{chosen}): {} ({}), {}\nglobal loads {} elements, {} moved, compute-to-global-memory-access ratio {:.2}\n{plan}",
        run.variant,
        out.data.dtype(),
        if compute_f16 { " computed in f16" } else { "" },
        run.tile,
        time(run.timing.seconds),
        run.timing.clock,
        flops(run.flop_per_second()),
        run.global_loads,
        bytes(run.global_bytes as f64),
        run.ratio,
    );
    let fields = json!({"run": run, "flop_per_second": run.flop_per_second()});
    Ok(Outcome {
        kernel: "matmul",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(out),
        check,
    })
}
