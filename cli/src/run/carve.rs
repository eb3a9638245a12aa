//! `tilekit run carve`: reverse N records (an int32, a float32 and four bytes each) through one
//! workgroup pool carved into three parts, each part checked against the CPU.

use crate::run::{random_f32, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use tilekit_course::units::time;

/// `tilekit run carve`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Records: one workgroup of N invocations holds 3·N words (so N is at most the invocation
    /// and workgroup-memory limits allow).
    #[arg(value_name = "N", value_parser = crate::run::size_arg)]
    n: usize,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "carve",
    about: "reverse N records through one workgroup pool carved into int32, float32 and byte parts",
    args: <RunArgs as Args>::augment_args,
    writes: false,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let n = RunArgs::from_arg_matches(m)?.n;
    // The byte part is the largest: 4 bytes per record.
    ctx.sized("carve records", &[n, 4], 1)?;
    let ints: Vec<i32> = (0..n as i64)
        .map(|i| (i as i32).wrapping_mul(-7919))
        .collect();
    let floats = random_f32(n, 10);
    let chars: Vec<u8> = (0..4 * n).map(|i| (i * 37) as u8).collect();
    let gpu = ctx.gpu()?;
    let (out, run) = ctx.warm(|| gpu.carved_reverse(&ints, &floats, &chars).wait())?;
    let ok = out.ints.iter().eq(ints.iter().rev())
        && out
            .floats
            .iter()
            .map(|f| f.to_bits())
            .eq(floats.iter().rev().map(|f| f.to_bits()))
        && out.chars.iter().eq(chars.iter().rev());
    let text = format!(
        "carved reverse of {n} records ({}): {} ({}), int32, float32 and byte parts each checked",
        run.tile,
        time(run.timing.seconds),
        run.timing.clock
    );
    Ok(Outcome {
        kernel: "carve",
        text,
        fields: json!({"run": run}).as_object().cloned().unwrap_or_default(),
        output: None,
        check: Check::Done(ok, "a carved part differs from the CPU".into()),
    })
}
