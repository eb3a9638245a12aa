//! Box blur (PMPP fig 4.1): naive, and tiled with the halo staged in workgroup memory.
//! Shader: `shaders/blur.wgsl`. Tests: `tests/blur.rs`. Example: `examples/09_blur.rs`.

use super::{grid_len, len_u32, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::Kernel;
use crate::{Error, Gpu, Result};
use serde::Serialize;

const SHADER: Shader = Shader::file("blur", include_str!("../../shaders/blur.wgsl"));

crate::kernels::named_enum! {
    /// Blur kernels.
    pub enum Variant ("blur variant") {
        /// Every window pixel from global memory (fig 4.1).
        Naive => "naive",
        /// Tile plus halo staged in workgroup memory.
        Tiled => "tiled",
    }
}

/// A blur run with the lesson's compute-to-global-memory-access ratio.
#[derive(Clone, Debug, Serialize)]
pub struct BlurRun {
    /// Time, bytes, plan.
    #[serde(flatten)]
    pub run: Run,
    /// Pixels loaded from global memory, as the kernel is written.
    pub global_loads: u64,
    /// Additions per global load (1.0 for naive, as fig 4.1).
    pub ratio: f64,
}

/// The number of valid window pixels around each pixel, summed over the image.
fn window_adds(width: u64, height: u64, r: u64) -> u64 {
    let span = |len: u64, i: u64| (i + r).min(len - 1) - i.saturating_sub(r) + 1;
    let xs: u64 = (0..width).map(|x| span(width, x)).sum();
    let ys: u64 = (0..height).map(|y| span(height, y)).sum();
    xs * ys
}

impl Gpu {
    /// Blur a width×height grayscale image on the device into `output`.
    pub fn blur_on_device(
        &self,
        input: &DeviceBuffer<f32>,
        output: &DeviceBuffer<f32>,
        (width, height): (usize, usize),
        radius: u32,
        variant: Variant,
    ) -> Result<BlurRun> {
        let pixels = grid_len(
            "image",
            (width, height),
            &[("input", input.len()), ("output", output.len())],
        )?;
        if radius > 64 {
            return Err(Error::SizeOverflow {
                what: "BLUR_SIZE".into(),
                detail: format!("{radius} (at most 64)"),
            });
        }
        let (w, h) = (len_u32("width", width)?, len_u32("height", height)?);
        let plan = self.planner().plan(Kernel::Blur {
            width: w,
            height: h,
            radius,
        })?;
        let t = plan.constant("TILE");
        let tiles_x = w.div_ceil(t);
        let tiles = tiles_x as u64 * h.div_ceil(t) as u64;
        let params = self.uniform(&[w, h, tiles_x, 0u32]);
        let timing = self.launch(
            &SHADER,
            variant.name(),
            &plan.constants(),
            &[(0, input.raw()), (1, output.raw()), (2, &params)],
            tiles,
        )?;
        let adds = window_adds(width as u64, height as u64, radius as u64);
        let global_loads = match variant {
            Variant::Naive => adds,
            // Every workgroup stages its whole (TILE+2r)² square (pixels outside load nothing,
            // but the lesson counts the staging as written).
            Variant::Tiled => tiles * ((t + 2 * radius) as u64).pow(2),
        };
        let run = Run {
            kernel: "blur",
            variant: variant.name().into(),
            elements: pixels as u64,
            bytes: 2 * input.bytes(),
            tile: plan.choice().label.clone(),
            plan: Some(plan),
            timing,
        };
        Ok(BlurRun {
            run,
            global_loads,
            ratio: adds as f64 / global_loads as f64,
        })
    }

    /// Blur a width×height grayscale image with a (2·radius+1)² box.
    pub fn blur(
        &self,
        image: &[f32],
        width: usize,
        height: usize,
        radius: u32,
        variant: Variant,
    ) -> Result<(Vec<f32>, BlurRun)> {
        let pixels = grid_len("image", (width, height), &[("input", image.len())])?;
        let input = self.upload("image", image)?;
        let output = self.alloc::<f32>("blurred", pixels)?;
        let run = self.blur_on_device(&input, &output, (width, height), radius, variant)?;
        Ok((self.read(&output)?, run))
    }
}

/// The CPU reference in f64: each pixel's window average, and the mean |x| over the window
/// (for error bounds).
pub fn reference(image: &[f32], width: usize, height: usize, radius: u32) -> (Vec<f64>, Vec<f64>) {
    let r = radius as i64;
    let mut out = vec![0.0; width * height];
    let mut mag = vec![0.0; width * height];
    for y in 0..height as i64 {
        for x in 0..width as i64 {
            let (mut s, mut a, mut c) = (0.0f64, 0.0f64, 0.0f64);
            for yy in (y - r).max(0)..=(y + r).min(height as i64 - 1) {
                for xx in (x - r).max(0)..=(x + r).min(width as i64 - 1) {
                    let v = image[(yy as usize) * width + xx as usize] as f64;
                    s += v;
                    a += v.abs();
                    c += 1.0;
                }
            }
            out[y as usize * width + x as usize] = s / c;
            mag[y as usize * width + x as usize] = a / c;
        }
    }
    (out, mag)
}

/// Compare a GPU blur with [`reference`]: an f32 sum of w = (2r+1)² values then a division is
/// within 1e-6·(w·mean|x| + |avg|) of the exact average. Returns the first failure.
pub fn verify(out: &[f32], (exact, mag): &(Vec<f64>, Vec<f64>), radius: u32) -> Result<()> {
    let window = ((2 * radius + 1) * (2 * radius + 1)) as f64;
    if out.len() != exact.len() {
        return Err(Error::mismatch(
            "blur result length",
            exact.len(),
            out.len(),
        ));
    }
    for (i, ((&g, &e), &m)) in out.iter().zip(exact).zip(mag).enumerate() {
        let (err, bound) = ((g as f64 - e).abs(), 1e-6 * (window * m + e.abs()) + 1e-30);
        // NaN (a poisoned pixel left unwritten) fails too.
        if err.is_nan() || err > bound {
            return Err(Error::Verification {
                what: "blur".into(),
                detail: format!(
                    "pixel {i}: got {g}, expected {e} (error {err:e}, bound {bound:e})"
                ),
            });
        }
    }
    Ok(())
}
