//! `tilekit run reduce`: sum, min or max of random data or a `.npy` array (any shape: every
//! element), verified against the CPU. The result is a 0-d array written with `-o`:
//! float32, int32 and uint32 keep their dtype (integer sums wrap modulo 2³², as the GPU's
//! arithmetic does; NumPy would widen to 64 bits, so a sum that wraps is warned about);
//! float16 and float64 are computed in float32 and written back in their own dtype (a float64
//! min or max is mapped back to the input element it stands for, so it is exact); uint8 is
//! widened to uint32 on the way in, min and max come back as uint8 and the sum as uint32 (NumPy
//! gives uint64; tilekit refuses sums that could pass 2³² − 1, so uint32 holds every one it
//! accepts). An empty input sums to zero; its min and max are refused, as NumPy refuses them.

use crate::npy::{Array, Data};
use crate::run::{random_f32, usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use half::f16;
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::reduce::{Op, Variant};
use tilekit::Error;
use tilekit_course::units::{bandwidth, time};

/// `tilekit run reduce`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Elements of random data (with --type); not with --input.
    #[arg(value_name = "N", value_parser = crate::run::size_arg)]
    n: Option<usize>,
    /// Reduce this .npy file instead (float16/32/64, int32, uint32, uint8; every element).
    #[arg(long, value_name = "X.npy", conflicts_with = "n")]
    input: Option<PathBuf>,
    /// The operator: sum, min or max.
    #[arg(long, default_value = "sum")]
    op: String,
    /// Element type of random data: f32, i32 or u32.
    #[arg(long = "type", default_value = "f32", value_name = "f32|i32|u32")]
    ty: String,
    /// The kernel: global, workgroup, unroll4, dynamic, grid-stride, subgroup, one-pass
    /// (default: the fastest this adapter supports).
    #[arg(long)]
    variant: Option<String>,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "reduce",
    about: "sum, min or max of random data or a .npy array, verified against the CPU",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn f64_reduce(x: impl Iterator<Item = f64>, op: Op) -> f64 {
    let mut acc = match op {
        Op::Sum => 0.0,
        Op::Min => f64::INFINITY,
        Op::Max => f64::NEG_INFINITY,
    };
    for v in x {
        acc = match op {
            Op::Sum => acc + v,
            // NaN propagates, as NumPy's min and max do.
            _ if v.is_nan() || acc.is_nan() => f64::NAN,
            Op::Min => acc.min(v),
            Op::Max => acc.max(v),
        };
    }
    acc
}

/// The input element that the GPU's f32 min or max stands for. Rounding to f32 keeps order, so
/// the f64 minimum is the least of the elements that round to the GPU's f32 minimum (likewise for
/// the maximum): a float64 min or max comes back as one of the user's own values, bit for bit, as
/// NumPy's does. A sum, NaN, or a value no element rounds to (a wrong GPU answer, which the check
/// then reports) is returned as computed.
fn exact_extreme(data: &Data, op: Op, gpu: f32) -> f64 {
    let Data::F64(x) = data else {
        return gpu as f64; // f32 itself, or f16 (exact in f32)
    };
    if op == Op::Sum || gpu.is_nan() {
        return gpu as f64;
    }
    let pick = if op == Op::Min { f64::min } else { f64::max };
    x.iter()
        .copied()
        .filter(|&v| v as f32 == gpu)
        .reduce(pick)
        .unwrap_or(gpu as f64)
}

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let op = Op::parse(&args.op)?;
    let (data, big_endian) = match (&args.input, args.n) {
        (Some(p), _) => {
            if crate::run::given(m, "ty") {
                return Err(usage(
                    "--type sets the element type of random data; --input keeps its file's dtype",
                ));
            }
            let a = ctx.input(p)?;
            if let Data::F64(x) = &a.data {
                crate::run::check_f32_range(x, p)?;
            }
            ctx.sized("reduce input", &[a.data.len()], 4)?;
            if let (Data::F64(_), Op::Sum) = (&a.data, op) {
                ctx.warn(format!(
                    "{}: float64 is summed in float32 and written back as float64",
                    p.display()
                ));
            }
            (a.data, a.big_endian)
        }
        (None, Some(n)) => {
            let r = random_f32(ctx.sized("reduce input", &[n], 4)?, 3);
            let d = match args.ty.as_str() {
                "f32" => Data::F32(r),
                "i32" => Data::I32(r.iter().map(|x| (x * 1000.0) as i32).collect()),
                "u32" => Data::U32(r.iter().map(|x| (x.abs() * 1e6) as u32).collect()),
                other => return Err(usage(format!("--type {other}: choose f32, i32 or u32"))),
            };
            (d, false)
        }
        (None, None) => return Err(usage("run reduce needs N or --input X.npy")),
    };
    let n = data.len();
    let exact = f64_reduce(data.to_f64().into_iter(), op);
    // The result's dtype: NumPy's, except that integer sums keep 32 bits (they wrap).
    let result_like = match (&data, op) {
        (Data::U8(_), Op::Sum) => "u64",
        (Data::U8(_), _) => "u8",
        (Data::I32(_), _) => "i32",
        (Data::U32(_), _) => "u32",
        (Data::F16(_), _) => "f16",
        (Data::F64(_), _) => "f64",
        (Data::F32(_), _) => "f32",
    };
    if n == 0 && op != Op::Sum {
        return Err(Error::ZeroSize {
            what: format!(
                "{} of an empty array (NumPy refuses it too; it has no identity)",
                op.name()
            ),
        }
        .into());
    }
    if matches!(data, Data::U8(_)) && op == Op::Sum && n > (u32::MAX / 255) as usize {
        return Err(usage(format!(
            "a uint8 sum of {n} values can overflow the 32-bit accumulator (at most {})",
            u32::MAX / 255
        )));
    }
    let v = match &args.variant {
        Some(s) => Variant::parse(s)?,
        None if n == 0 => Variant::GridStride,
        None => tilekit::kernels::reduce::default_variant(ctx.gpu()?),
    };
    // The value, as f64 and as the array written.
    let (value, run): (f64, Option<tilekit::kernels::reduce::ReduceRun>) = if n == 0 {
        (0.0, None)
    } else {
        let gpu = ctx.gpu()?;
        match &data {
            Data::I32(x) => {
                let (s, r) = ctx.warm(|| gpu.reduce_with(x, op, v).wait())?;
                (s as f64, Some(r))
            }
            Data::U32(x) => {
                let (s, r) = ctx.warm(|| gpu.reduce_with(x, op, v).wait())?;
                (s as f64, Some(r))
            }
            Data::U8(x) => {
                let w: Vec<u32> = x.iter().map(|&b| b as u32).collect();
                let (s, r) = ctx.warm(|| gpu.reduce_with(&w, op, v).wait())?;
                (s as f64, Some(r))
            }
            floats => {
                let x = floats.to_f32().expect("a float type");
                let (s, r) = ctx.warm(|| gpu.reduce_with(&x, op, v).wait())?;
                (exact_extreme(floats, op, s), Some(r))
            }
        }
    };
    let wrapped = |e: f64, bits: u32| -> f64 {
        // The exact integer sum modulo 2^bits, as the GPU computes it.
        let m = 2f64.powi(bits as i32);
        let r = e.rem_euclid(m);
        if result_like == "i32" && r >= m / 2.0 {
            r - m
        } else {
            r
        }
    };
    let expected = match (result_like, op) {
        ("i32" | "u32", Op::Sum) => {
            let w = wrapped(exact, 32);
            if w != exact {
                ctx.warn(format!(
                    "the {} sum wrapped modulo 2^32 (exact: {exact}); NumPy would widen to 64 bits",
                    data.dtype()
                ));
            }
            w
        }
        _ => exact,
    };
    let out_data = match result_like {
        "u64" => Data::U32(vec![value as u32]),
        "u8" => Data::U8(vec![value as u8]),
        "i32" => Data::I32(vec![value as i32]),
        "u32" => Data::U32(vec![value as u32]),
        "f16" => Data::F16(vec![f16::from_f64(value)]),
        "f64" => Data::F64(vec![value]),
        _ => Data::F32(vec![value as f32]),
    };
    let out = Array {
        data: out_data,
        shape: vec![],
        big_endian,
    };
    let check = if data.is_float() {
        let mag: f64 = data.to_f64().iter().map(|v| v.abs()).sum();
        let levels = (n.max(1) as f64).log2().ceil() + 3.0;
        let bound = match op {
            Op::Sum => levels * 2f64.powi(-24) * mag,
            // A float64 min or max is one of the inputs, exactly (exact_extreme).
            _ if matches!(data, Data::F64(_)) => 0.0,
            _ => expected.abs() * 2f64.powi(-24),
        } + match out.data {
            Data::F16(_) => expected.abs() * 2f64.powi(-11) + 2f64.powi(-24),
            _ => 0.0,
        };
        Check::Close {
            exact: vec![expected],
            bound: vec![bound],
            descr: out.descr(),
            shape: vec![],
        }
    } else {
        let e = Array {
            data: match &out.data {
                Data::U8(_) => Data::U8(vec![expected as u8]),
                Data::I32(_) => Data::I32(vec![expected as i32]),
                _ => Data::U32(vec![expected as u32]),
            },
            shape: vec![],
            big_endian,
        };
        Check::Exact(e)
    };
    // The value as the array written holds it, where its dtype rounds it (float16: past 65504,
    // an infinity, as NumPy's).
    let written = out.data.to_f64()[0];
    let shown = if written == value || (written.is_nan() && value.is_nan()) {
        format!("{value}")
    } else {
        format!("{value} ({written} as {})", data.dtype())
    };
    let text = match &run {
        Some(r) => format!(
            "{} of {n} {}: {shown} (CPU reference {expected})\n{}: {} ({}), {}, {} launch(es), WG={}\n{}",
            op.name(),
            data.dtype(),
            v.name(),
            time(r.timing.seconds),
            r.timing.clock,
            bandwidth(r.bytes_per_second()),
            r.launches,
            r.workgroup,
            r.plan.table()
        ),
        None => format!("{} of an empty array: 0 (no launch)", op.name()),
    };
    let result = if data.is_float() {
        crate::run::json_float(value)
    } else {
        json!(value as i64)
    };
    let fields = json!({
        "result": result,
        "cpu_reference": crate::run::json_float(expected),
        "run": run,
        "bytes_per_second": run.as_ref().map(|r| r.bytes_per_second()),
    });
    Ok(Outcome {
        kernel: "reduce",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(out),
        check,
    })
}
