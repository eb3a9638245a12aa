//! `tilekit run transpose`: transpose a random M×N matrix or a `.npy` array of any dtype, as
//! `np.transpose` does, bit for bit: a 2-D array becomes N×M, a 1-D array is its own transpose.
//! 4- and 8-byte elements move as they are; 1- and 2-byte ones are widened to 32-bit words for
//! the kernel and narrowed back, which keeps every bit.

use crate::npy::{Array, Data};
use crate::run::{random_f32, usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::transpose::Variant;
use tilekit_course::units::{bandwidth, time};

/// `tilekit run transpose`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// M N: the rows and columns of a random float32 matrix; not with --input.
    #[arg(value_name = "SIZE", num_args = 0..=2, value_parser = crate::run::size_arg)]
    sizes: Vec<usize>,
    /// Transpose this 1-D or 2-D .npy file instead (any dtype tilekit reads).
    #[arg(long, value_name = "X.npy")]
    input: Option<PathBuf>,
    /// The kernel: naive, tiled or padded.
    #[arg(long, default_value = "padded")]
    variant: String,
    /// Force the tile width, e.g. TILE=16 (or 16).
    #[arg(long)]
    tile: Option<String>,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "transpose",
    about: "transpose a random matrix or a .npy array (np.transpose), bit for bit",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let v = Variant::parse(&args.variant)?;
    let input = match (&args.input, &args.sizes[..]) {
        (Some(_), [_, ..]) => return Err(usage("give M N or --input, not both")),
        (Some(p), _) => {
            let a = ctx.input(p)?;
            ctx.sized(
                "transpose input",
                &[a.data.len()],
                a.data.item_size().max(4),
            )?;
            a
        }
        (None, [m, n]) => Array::new(
            Data::F32(random_f32(ctx.sized("transpose input", &[*m, *n], 4)?, 4)),
            vec![*m as u64, *n as u64],
        ),
        _ => return Err(usage("run transpose needs M N or --input X.npy")),
    };
    let (rows, cols, out_shape) = match input.shape[..] {
        [n] => (1usize, n as usize, vec![n]),
        [r, c] => (r as usize, c as usize, vec![c, r]),
        _ => {
            return Err(usage(format!(
                "transpose takes a 1-D or 2-D array, found shape {:?}",
                input.shape
            )))
        }
    };
    // The expected result: element (i, j) of the input at (j, i).
    let order: Vec<usize> = (0..cols)
        .flat_map(|j| (0..rows).map(move |i| i * cols + j))
        .collect();
    let expected = input.like(input.data.gather(&order), out_shape.clone());
    if rows == 0 || cols == 0 {
        return Ok(Outcome {
            kernel: "transpose",
            text: format!(
                "transpose of an empty {:?} {} array: shape {:?} (no launch)",
                input.shape,
                input.dtype(),
                out_shape
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
    let tile = args.tile.as_deref().map(tile_width).transpose()?;
    let (data, run) = match &input.data {
        Data::F64(x) => {
            let (out, run) = ctx.warm(|| gpu.transpose(x, rows, cols, v, tile).wait())?;
            (Data::F64(out), run)
        }
        d => {
            let w = d.to_words().expect("a 1-, 2- or 4-byte type");
            let (out, run) = ctx.warm(|| gpu.transpose(&w, rows, cols, v, tile).wait())?;
            (d.with_words(out), run)
        }
    };
    let out = input.like(data, out_shape);
    let text = format!(
        "transpose {rows}×{cols} {} ({}, {}): {} ({}), {}",
        input.dtype(),
        v.name(),
        run.tile,
        time(run.timing.seconds),
        run.timing.clock,
        bandwidth(run.bytes_per_second())
    );
    let fields = json!({"run": run, "bytes_per_second": run.bytes_per_second()});
    Ok(Outcome {
        kernel: "transpose",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        output: Some(out),
        check: Check::Exact(expected),
    })
}

/// `--tile` as the tile's width: `16`, or a candidate's label `TILE=16` (`TILE=16, ROWS=4`).
fn tile_width(label: &str) -> Result<u32, Fail> {
    let width = label
        .trim()
        .trim_start_matches("TILE=")
        .split(',')
        .next()
        .unwrap_or("");
    width.trim().parse().map_err(|_| {
        usage(format!(
            "--tile {label}: a tile width, e.g. TILE=16 or 16 (`tilekit plan transpose` lists them)"
        ))
    })
}
