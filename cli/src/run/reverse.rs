//! `tilekit run reverse`: reverse `0..N` or a `.npy` array of any dtype and shape, as
//! `np.flip(x)` does (every axis flipped: the flat array reversed, the shape kept), bit for bit.
//! 4- and 8-byte elements move as they are; 1- and 2-byte ones (uint8, float16) are widened to
//! 32-bit words for the kernel and narrowed back, which keeps every bit.

use crate::npy::{Array, Data};
use crate::run::{usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::reverse::Variant;
use tilekit_course::units::{bandwidth, time};

/// `tilekit run reverse`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Reverse 0..N as uint32; not with --input.
    #[arg(value_name = "N", value_parser = crate::run::size_arg)]
    n: Option<usize>,
    /// Reverse this .npy file instead (any dtype tilekit reads, any shape; written with -o as
    /// np.flip would give it).
    #[arg(long, value_name = "X.npy", conflicts_with = "n")]
    input: Option<PathBuf>,
    /// The kernel: static (exactly 64 elements), dynamic (one workgroup, up to the invocation
    /// limit) or block (any n).
    #[arg(long, default_value = "block")]
    variant: String,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "reverse",
    about: "reverse 0..N or a .npy array (np.flip), bit for bit, keeping dtype and shape",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let v = Variant::parse(&args.variant)?;
    let input = match (&args.input, args.n) {
        (Some(p), _) => {
            let a = ctx.input(p)?;
            // Elements narrower than 4 bytes are widened to words for the kernel.
            ctx.sized("reverse input", &[a.data.len()], a.data.item_size().max(4))?;
            a
        }
        (None, Some(n)) => {
            // Within the adapter's binding size, so within u32 too.
            let n = ctx.sized("reverse input", &[n], 4)?;
            Array::new(Data::U32((0..n as u32).collect()), vec![n as u64])
        }
        (None, None) => return Err(usage("run reverse needs N or --input X.npy")),
    };
    let n = input.data.len();
    let order: Vec<usize> = (0..n).rev().collect();
    let expected = input.like(input.data.gather(&order), input.shape.clone());
    if n == 0 {
        return Ok(Outcome {
            kernel: "reverse",
            text: format!(
                "reverse of an empty {} array: nothing to move (no launch)",
                input.dtype()
            ),
            fields: json!({"run": null})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            output: Some(expected.clone()),
            check: Check::Exact(expected),
        });
    }
    let gpu = ctx.gpu()?;
    let (data, run) = match (&input.data, v) {
        (Data::F64(x), Variant::Block) => {
            let (out, run) = ctx.warm(|| {
                gpu.reverse(x, tilekit::kernels::reverse::Variant::Block)
                    .wait()
            })?;
            (Data::F64(out), run)
        }
        (Data::F64(_), _) => {
            return Err(usage(format!(
            "--variant {}: the article's kernels move 32-bit words; float64 takes --variant block",
            v.name()
        )))
        }
        (d, _) => {
            let w = d.to_words().expect("a 1-, 2- or 4-byte type");
            let (out, run) = match v {
                Variant::Static => ctx.warm(|| {
                    gpu.reverse(&w, tilekit::kernels::reverse::Variant::Static)
                        .wait()
                })?,
                Variant::Dynamic => ctx.warm(|| {
                    gpu.reverse(&w, tilekit::kernels::reverse::Variant::Dynamic)
                        .wait()
                })?,
                Variant::Block => ctx.warm(|| {
                    gpu.reverse(&w, tilekit::kernels::reverse::Variant::Block)
                        .wait()
                })?,
            };
            (d.with_words(out), run)
        }
    };
    let out = input.like(data, input.shape.clone());
    let text = format!(
        "reverse {n} {} ({}, {}): {} ({}), {}",
        input.dtype(),
        v.name(),
        run.tile,
        time(run.timing.seconds),
        run.timing.clock,
        bandwidth(run.bytes_per_second())
    );
    let fields = json!({"run": run, "bytes_per_second": run.bytes_per_second()});
    Ok(Outcome {
        kernel: "reverse",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(out),
        check: Check::Exact(expected),
    })
}
