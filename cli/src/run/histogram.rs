//! `tilekit run histogram`: the 256-bin histogram of random bytes or of a `.npy` array of uint8
//! (bin = the value) or uint32 (bin = the low byte), any shape. The bins are written as uint32
//! (256,) (`np.bincount(x, minlength=256)` gives int64; the counts are the same). An empty input
//! gives 256 zeros; other dtypes are refused.

use crate::npy::{Array, Data};
use crate::run::CliError;
use crate::run::{random_f32, usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::histogram::Variant;
use tilekit_course::units::{bandwidth, time};

/// `tilekit run histogram`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Count N random bytes; not with --input.
    #[arg(value_name = "N", value_parser = crate::run::size_arg)]
    n: Option<usize>,
    /// Count this .npy file instead (uint8, or uint32 binned by the low byte).
    #[arg(long, value_name = "X.npy", conflicts_with = "n")]
    input: Option<PathBuf>,
    /// Where to count: workgroup (workgroup atomics) or global (global atomics).
    #[arg(long, default_value = "workgroup")]
    variant: String,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "histogram",
    about: "256-bin histogram of uint8 (or uint32 by low byte) values, workgroup or global atomics",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let v = Variant::parse(&args.variant)?;
    let data = match (&args.input, args.n) {
        (Some(p), _) => {
            let a = ctx.input(p)?;
            ctx.sized("histogram input", &[a.data.len()], a.data.item_size())?;
            match a.data {
                Data::U8(_) | Data::U32(_) => a.data,
                other => {
                    return Err(CliError::Npy {
                        path: p.display().to_string(),
                        message: format!(
                            "histogram takes uint8 or uint32, found {}",
                            other.dtype()
                        ),
                    }
                    .into())
                }
            }
        }
        (None, Some(n)) => Data::U8(
            random_f32(ctx.sized("histogram input", &[n], 1)?, 8)
                .iter()
                .map(|x| (x.abs() * 255.0) as u8)
                .collect(),
        ),
        (None, None) => return Err(usage("run histogram needs N or --input X.npy")),
    };
    let mut expected = [0u32; 256];
    match &data {
        Data::U8(b) => b.iter().for_each(|&x| expected[x as usize] += 1),
        Data::U32(w) => w.iter().for_each(|&x| expected[(x & 0xff) as usize] += 1),
        _ => unreachable!("refused above"),
    }
    let expected_array = Array::new(Data::U32(expected.to_vec()), vec![256]);
    let n = data.len();
    if n == 0 {
        return Ok(Outcome {
            kernel: "histogram",
            text: "histogram of an empty array: 256 zeros (no launch)".into(),
            fields: json!({"bins": expected.to_vec(), "run": null})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            output: Some(expected_array.clone()),
            check: Check::Exact(expected_array),
        });
    }
    let gpu = ctx.gpu()?;
    let (h, run) = match &data {
        Data::U8(b) => ctx.warm(|| gpu.histogram(b, v).wait())?,
        Data::U32(w) => ctx.warm(|| gpu.histogram(w, v).wait())?,
        _ => unreachable!("refused above"),
    };
    let text = format!(
        "histogram of {n} {} values ({}): {} ({}), {}",
        data.dtype(),
        v.name(),
        time(run.timing.seconds),
        run.timing.clock,
        bandwidth(run.bytes_per_second())
    );
    let fields =
        json!({"bins": h.to_vec(), "run": run, "bytes_per_second": run.bytes_per_second()});
    Ok(Outcome {
        kernel: "histogram",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(Array::new(Data::U32(h.to_vec()), vec![256])),
        check: Check::Exact(expected_array),
    })
}
