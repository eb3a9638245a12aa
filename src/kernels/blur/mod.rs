//! Box blur (PMPP fig 4.1): naive, and tiled with the halo staged in workgroup memory.
//! Shader: `shaders/blur.wgsl`. Tests: `tests/blur.rs`. Example: `examples/09_blur.rs`.

use super::{fitting, grid_len, len_u32, size_u32, Family, Module, PipelineUse, PlanKernel, Run};
use crate::buffer::DeviceBuffer;
use crate::pipeline::Shader;
use crate::plan::{cdiv, KernelUse, Planner, Spec, Tiling};
use crate::{Error, Gpu, Result};
use serde::Serialize;

const SHADER: Shader = Shader::file("blur", include_str!("../../../shaders/blur.wgsl"));
/// The largest BLUR_SIZE the command line and library accept.
pub const MAX_RADIUS: u32 = 64;

/// The planner's view of the blur: TILE ∈ {8, 16, 32}, the tile and its halo in workgroup
/// memory (`halo`: (TILE + 2·BLUR_SIZE)² f32).
#[derive(Clone, Copy, Debug)]
pub struct BlurTiling {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// BLUR_SIZE: the window is (2·radius+1)².
    pub radius: u32,
    /// Whether the tile and its halo are staged in workgroup memory (the tiled kernel); the
    /// naive kernel reads every window pixel from global memory and needs none.
    pub staged: bool,
}

impl Tiling for BlurTiling {
    fn kernel(&self) -> &'static str {
        "blur"
    }
    fn sizes(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("width", self.width as u64),
            ("height", self.height as u64),
            ("radius", self.radius as u64),
        ]
    }
    fn candidates(&self) -> Vec<Spec> {
        let radius = self.radius;
        [8u32, 16, 32]
            .into_iter()
            .map(|t| {
                let side = t + 2 * radius;
                let window = ((2 * radius + 1) * (2 * radius + 1)) as f64;
                Spec {
                    label: format!("TILE={t}"),
                    constants: vec![("TILE", t), ("BLUR_SIZE", radius)],
                    workgroup_size: [t, t, 1],
                    usage: KernelUse {
                        invocations: t * t,
                        workgroup_bytes: if self.staged {
                            side.saturating_mul(side).saturating_mul(4)
                        } else {
                            0
                        },
                        registers: 16,
                    },
                    // Naive: window loads per pixel; tiled: side²/t² loads per pixel.
                    reuse: if self.staged {
                        window * (t * t) as f64 / (side as f64 * side as f64)
                    } else {
                        1.0
                    },
                    workgroups: cdiv(self.width as u64, t as u64)
                        * cdiv(self.height as u64, t as u64),
                    split_k: None,
                    work: None,
                }
            })
            .collect()
    }
}

crate::family::named_enum! {
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
    pub fn blur_on_device<'a>(
        &'a self,
        input: &'a DeviceBuffer<f32>,
        output: &'a DeviceBuffer<f32>,
        (width, height): (usize, usize),
        radius: u32,
        variant: Variant,
    ) -> crate::Call<'a, BlurRun> {
        crate::Call::new(async move {
            let pixels = grid_len(
                "image",
                (width, height),
                &[("input", input.len()), ("output", output.len())],
            )?;
            if radius > MAX_RADIUS {
                return Err(Error::SizeOverflow {
                    what: "BLUR_SIZE".into(),
                    detail: format!("{radius} (at most {MAX_RADIUS})"),
                });
            }
            let (w, h) = (len_u32("width", width)?, len_u32("height", height)?);
            let plan = self.planner().plan(&BlurTiling {
                width: w,
                height: h,
                radius,
                staged: variant == Variant::Tiled,
            })?;
            let t = plan.constant("TILE");
            let tiles_x = w.div_ceil(t);
            let tiles = tiles_x as u64 * h.div_ceil(t) as u64;
            let params = self.uniform(&[w, h, tiles_x, 0u32]);
            let timing = self
                .launch(
                    &SHADER,
                    variant.name(),
                    &plan.constants(),
                    &[(0, input.bind()), (1, output.bind()), (2, params.bind())],
                    tiles,
                )
                .await?;
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
        })
    }

    /// Blur a width×height grayscale image with a (2·radius+1)² box.
    pub fn blur<'a>(
        &'a self,
        image: &'a [f32],
        width: usize,
        height: usize,
        radius: u32,
        variant: Variant,
    ) -> crate::Call<'a, (Vec<f32>, BlurRun)> {
        crate::Call::new(async move {
            let pixels = grid_len("image", (width, height), &[("input", image.len())])?;
            let input = self.upload("image", image).await?;
            let output = self.alloc::<f32>("blurred", pixels).await?;
            let run = self
                .blur_on_device(&input, &output, (width, height), radius, variant)
                .await?;
            Ok((self.read(&output).await?, run))
        })
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

/// Compare a GPU blur with [`reference()`]: an f32 sum of w = (2r+1)² values then a division is
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
        let bound = 1e-6 * (window * m + e.abs()) + 1e-30;
        super::check_element("blur", || format!("pixel {i}"), g as f64, e, bound)?;
    }
    Ok(())
}

/// The blur family.
pub(crate) struct Blur;

/// The family's registration (see [`super::FAMILIES`]).
pub(crate) static FAMILY: Blur = Blur;

impl Family for Blur {
    fn name(&self) -> &'static str {
        "blur"
    }

    fn about(&self) -> &'static str {
        "box blur and its compute-to-global-memory-access ratio, naive and with the halo in workgroup memory (PMPP fig 4.1)"
    }

    fn modules(&self) -> Vec<Module> {
        vec![Module {
            shader: SHADER,
            needs: wgpu::Features::empty(),
        }]
    }

    fn pipelines(&self, planner: &Planner) -> Vec<PipelineUse> {
        let m = &self.modules()[0];
        let mut out = Vec::new();
        for radius in [1u32, 2, 8] {
            let t = BlurTiling {
                width: 1024,
                height: 1024,
                radius,
                staged: true,
            };
            for c in fitting(planner, &t) {
                for v in Variant::ALL {
                    out.push(PipelineUse::new(m, v.name(), c.clone()));
                }
            }
        }
        out
    }

    fn plans(&self) -> Vec<PlanKernel> {
        vec![PlanKernel {
            name: "blur",
            sizes: &[("W", 1024), ("H", 1024), ("R", 1)],
            make: |s, _| {
                Ok(Box::new(BlurTiling {
                    width: size_u32("W", s[0])?,
                    height: size_u32("H", s[1])?,
                    radius: size_u32("R", s[2])?.min(MAX_RADIUS),
                    staged: true,
                }))
            },
        }]
    }
}
