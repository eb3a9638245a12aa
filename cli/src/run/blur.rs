//! `tilekit run blur`: box blur of a random W×H image or a 2-D `.npy` image (float16, float32 or
//! float64: computed in float32, written back in the input's dtype), verified against the f64
//! reference. An empty image gives an empty image; integer images are refused.

use crate::npy::{Array, Data};
use crate::run::{random_f32, usage, Check, Ctx, Fail, Outcome, RunCommand};
use clap::{Args, FromArgMatches};
use serde_json::json;
use std::path::PathBuf;
use tilekit::kernels::blur::{reference, Variant, MAX_RADIUS};
use tilekit_course::units::{bandwidth, time};

/// `tilekit run blur`'s own arguments.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// W H: the width and height of a random float32 image; not with --input.
    #[arg(value_name = "SIZE", num_args = 0..=2, value_parser = crate::run::size_arg)]
    sizes: Vec<usize>,
    /// Blur this 2-D .npy image instead (rows × columns; float16, float32 or float64).
    #[arg(long, value_name = "IMAGE.npy")]
    input: Option<PathBuf>,
    /// BLUR_SIZE: the window is (2·R+1)² pixels (at most 64).
    #[arg(long, default_value_t = 1)]
    radius: u32,
    /// The kernel: naive (every window pixel from global memory) or tiled (halo in workgroup
    /// memory).
    #[arg(long, default_value = "tiled")]
    variant: String,
}

pub(super) const COMMAND: RunCommand = RunCommand {
    name: "blur",
    about: "box blur of a random or .npy image, naive or tiled with its halo in workgroup memory",
    args: <RunArgs as Args>::augment_args,
    writes: true,
    run,
};

fn run(ctx: &Ctx, m: &clap::ArgMatches) -> Result<Outcome, Fail> {
    let args = RunArgs::from_arg_matches(m)?;
    let v = Variant::parse(&args.variant)?;
    if args.radius > MAX_RADIUS {
        return Err(usage(format!(
            "--radius {} is over {MAX_RADIUS}",
            args.radius
        )));
    }
    let (img, (h, w), like, big_endian) = match (&args.input, &args.sizes[..]) {
        (Some(_), [_, ..]) => return Err(usage("give W H or --input, not both")),
        (Some(p), _) => {
            let a = ctx.input(p)?;
            let dims = a.matrix(p)?;
            ctx.sized("blur image", &[dims.0, dims.1], 4)?;
            let f = ctx.floats(&a, p, "blur")?;
            (f, dims, a.data.float_like(vec![]), a.big_endian)
        }
        (None, [w, h]) => {
            let n = ctx.sized("blur image", &[*w, *h], 4)?;
            (random_f32(n, 9), (*h, *w), Data::F32(vec![]), false)
        }
        _ => return Err(usage("run blur needs W H or --input image.npy")),
    };
    let shape = vec![h as u64, w as u64];
    if w == 0 || h == 0 {
        let out = Array {
            data: like.float_like(vec![]),
            shape,
            big_endian,
        };
        return Ok(Outcome {
            kernel: "blur",
            text: format!("blur of an empty {h}×{w} image: empty (no launch)"),
            fields: json!({"run": null})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            output: Some(out.clone()),
            check: Check::Exact(out),
        });
    }
    let gpu = ctx.gpu()?;
    let (blurred, run) = ctx.warm(|| gpu.blur(&img, w, h, args.radius, v).wait())?;
    let out = Array {
        data: like.float_like(blurred),
        shape: shape.clone(),
        big_endian,
    };
    let (exact, mag) = reference(&img, w, h, args.radius);
    let window = ((2 * args.radius + 1) * (2 * args.radius + 1)) as f64;
    let bound = exact
        .iter()
        .zip(&mag)
        .map(|(e, g)| {
            1e-6 * (window * g + e.abs())
                + 1e-30
                + match out.data {
                    Data::F16(_) => e.abs() * 2f64.powi(-11) + 2f64.powi(-24),
                    _ => 0.0,
                }
        })
        .collect();
    let text = format!(
        "blur {w}×{h} r={} {} ({}): {} ({}), {}, ratio {:.2} adds per global load",
        args.radius,
        v.name(),
        run.run.tile,
        time(run.run.timing.seconds),
        run.run.timing.clock,
        bandwidth(run.run.bytes_per_second()),
        run.ratio
    );
    let fields = json!({"run": run, "bytes_per_second": run.run.bytes_per_second()});
    Ok(Outcome {
        kernel: "blur",
        text,
        fields: fields.as_object().cloned().unwrap_or_default(),
        check: Check::Close {
            exact,
            bound,
            descr: out.descr(),
            shape,
        },
        output: Some(out),
    })
}
