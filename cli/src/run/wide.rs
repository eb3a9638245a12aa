//! `tilekit run copy`: copy N words (a random-looking sequence) with scalar or vec4 loads,
//! verified word for word; `-o` writes the copy as uint32.

use crate::npy::{Array, Data};
use crate::run::{Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use tilekit::kernels::wide::Width;
use tilekit_course::units::{bandwidth, time};

/// `tilekit run copy`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Words to copy.
    #[arg(value_name = "N", value_parser = crate::run::size_arg)]
    n: usize,
    /// Load width: scalar (32-bit) or vec4 (128-bit).
    #[arg(long, default_value = "vec4", value_name = "scalar|vec4")]
    width: String,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "copy",
    about: "copy N words with scalar or vec4 loads (the wide-loads lesson)",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let w = Width::parse(&args.width)?;
    // Within the adapter's binding size, so within u32 too.
    let n = ctx.sized("copy input", &[args.n], 4)? as u32;
    let x: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let gpu = ctx.gpu()?;
    let src = gpu.upload("copy source", &x).wait()?;
    let dst = gpu.alloc::<u32>("copy destination", x.len()).wait()?;
    let run = ctx.warm(|| gpu.copy_on_device(&src, &dst, w).wait())?;
    let out = gpu.read(&dst).wait()?;
    let text = format!(
        "copy {n} words ({}): {} ({}), {}",
        w.name(),
        time(run.timing.seconds),
        run.timing.clock,
        bandwidth(run.bytes_per_second())
    );
    let fields = json!({"run": run, "bytes_per_second": run.bytes_per_second()});
    Ok(Outcome {
        kernel: "copy",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(Array::new(Data::U32(out), vec![n as u64])),
        check: Check::Exact(Array::new(Data::U32(x), vec![n as u64])),
    })
}
