//! The matmul's bench cases: every variant on one square product, then the shape set users meet
//! (square, ragged, matrix-vector, small batches against a large weight, tall-skinny, deep K)
//! with the variant the library chooses for each, so that the whole call is judged where users
//! call it (BENCHMARKS.md compares each with cuBLAS).

use crate::bench::{rand_f32, Bench, Bound, Sample};
use half::f16;
use tilekit::kernels::matmul::{
    f16_bound, f32_bound, verify_sampled, Precision, Selection, Shape, Variant,
};
use tilekit::plan::Tile;
use tilekit::DeviceBuffer;
use tilekit::{Gpu, Result};

/// The shape set of `tilekit bench` (full size), M×K×N.
pub const SHAPES: [(usize, usize, usize); 18] = [
    (256, 256, 256),
    (512, 512, 512),
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4095, 4095, 4095),
    (1000, 1000, 1000),
    (3000, 5000, 700),
    (1, 4096, 4096),
    (1, 8192, 8192),
    (16, 4096, 4096),
    (32, 4096, 4096),
    (64, 4096, 4096),
    (128, 4096, 4096),
    (8192, 8192, 64),
    (64, 8192, 8192),
    (64, 65536, 64),
];

/// The quick shape set (lavapipe): one of each kind, small.
pub const QUICK_SHAPES: [(usize, usize, usize); 6] = [
    (64, 64, 64),
    (63, 65, 67),
    (1, 256, 256),
    (16, 256, 256),
    (256, 256, 8),
    (8, 4096, 8),
];

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    let gpu = b.gpu;
    if b.wants("matmul/") {
        let n = b.pick(128, 4096);
        let (a, bm) = (rand_f32(n * n, 1), rand_f32(n * n, 2));
        let (da, db) = (gpu.upload("A", &a).wait()?, gpu.upload("B", &bm).wait()?);
        let dc = gpu.alloc::<f32>("C", n * n).wait()?;
        let shape = Shape::new(n, n, n)?;
        for v in Variant::all().filter(|v| v.precision() == Precision::F32) {
            if gpu.require(v.needs(), v.name()).is_err() {
                continue;
            }
            b.measure_back_to_back(
                &format!("matmul/{}", v.name()),
                format!("{n}³"),
                12 * (n * n) as u64,
                shape.flops(),
                Bound::Compute,
                |check| {
                    let run = gpu
                        .matmul_on_device(&da, &db, &dc, shape, &Selection::Variant(v))
                        .wait()?;
                    let ok = !check || {
                        let c = gpu.read(&dc).wait()?;
                        verify_sampled(&a, &bm, &c, (n, n, n), 64, f32_bound).is_ok()
                    };
                    Ok((run.timing.seconds, ok, run.tile))
                },
            )?;
        }
    }
    if b.wants("matmul-shape/") {
        let shapes: &[(usize, usize, usize)] = b.pick(&QUICK_SHAPES, &SHAPES);
        f32_shapes(b, "matmul-shape", shapes)?;
    }
    if b.wants("matmul-call/") {
        // The wall time of one whole call as a program sees it (operands already on the GPU):
        // choose, plan, bind, dispatch, wait, read C back. One call at a time, not back to back:
        // a call timed by the GPU's timestamps under `measure_back_to_back` holds as many copies
        // of its launches as its first run's time asks for, which is not a program's call
        // (BENCHMARKS.md, "The per-call tax").
        let n = 512;
        let shape = Shape::new(n, n, n)?;
        let (a, bm) = (rand_f32(n * n, 5), rand_f32(n * n, 6));
        let (da, db) = (gpu.upload("A", &a).wait()?, gpu.upload("B", &bm).wait()?);
        let dc = gpu.alloc::<f32>("C", n * n).wait()?;
        b.measure(
            "matmul-call/512",
            format!("{n}³"),
            12 * (n * n) as u64,
            shape.flops(),
            Bound::Compute,
            |check| {
                wall_of_call(check, (&a, &bm, n), || {
                    let (c, run) = gpu
                        .matmul_read(&da, &db, &dc, shape, &Selection::Auto)
                        .wait()?;
                    Ok((c, run.variant))
                })
            },
        )?;
        // Products queued one after another (`Gpu::matmul_queue`), as a program's chain of
        // layers runs them: the host records each while the GPU runs earlier ones (up to 8 to
        // a submission), and only the read of C at the end waits. The time per product;
        // PyTorch's counterpart is `for _ in range(16): c = a @ b` then `c.cpu()`.
        const QUEUED: usize = 16;
        b.measure(
            "matmul-call/queued-512",
            format!("{n}³ ×{QUEUED} queued"),
            12 * (n * n) as u64,
            shape.flops(),
            Bound::Compute,
            |check| {
                let (wall, ok, how) = wall_of_call(check, (&a, &bm, n), || {
                    let queue = || gpu.matmul_queue(&da, &db, &dc, shape, &Selection::Auto);
                    let variant = queue().wait()?.variant;
                    for _ in 1..QUEUED {
                        queue().wait()?;
                    }
                    Ok((gpu.read(&dc).wait()?, variant))
                })?;
                Ok((wall / QUEUED as f64, ok, how))
            },
        )?;
        // The wall time of a whole call from host slices (`Gpu::matmul`): A and B uploaded, the
        // product, C back as a `Vec`. At large sizes its transfers are most of it (BENCHMARKS.md,
        // "Host slices through a staging ring").
        let n = b.pick(256, 4096);
        let shape = Shape::new(n, n, n)?;
        let variant =
            tilekit::kernels::matmul::select(gpu, shape, Precision::F32, &Selection::Auto)?.variant;
        let (a, bm) = (rand_f32(n * n, 7), rand_f32(n * n, 8));
        b.measure(
            &format!("matmul-call/host-{n}"),
            format!("{n}³ from host slices"),
            12 * (n * n) as u64,
            shape.flops(),
            Bound::Compute,
            |check| {
                wall_of_call(check, (&a, &bm, n), || {
                    Ok((
                        gpu.matmul(
                            &a,
                            &bm,
                            (n, n, n),
                            &tilekit::kernels::matmul::Selection::Auto,
                        )
                        .wait()?
                        .0,
                        variant,
                    ))
                })
            },
        )?;
    }
    if b.wants("matmul-f16/") {
        f16_cases(b)?;
    }
    let filter = b.cfg.filter.clone().unwrap_or_default();
    let asked = |what: &str| filter.contains(what);
    if asked("matmul-sweep") {
        sweep(b)?;
    }
    if asked("matmul-unseen") {
        // Shapes neither the bench's sets nor `tilekit tune` use (model layers, a ragged cube):
        // how the selection does where nothing was measured.
        let shapes: &[(usize, usize, usize)] = b.pick(&QUICK_SHAPES, &UNSEEN);
        f32_shapes(b, "matmul-unseen", shapes)?;
        if b.gpu.features().contains(wgpu::Features::SHADER_F16) {
            f16_shapes(b, "matmul-unseen/f16", shapes)?;
        }
    }
    Ok(())
}

/// One whole call of an n³ f32 product as a program sees it, by the wall clock, its C checked
/// against A and B when `check` asks (the `matmul-call/` cases).
fn wall_of_call(
    check: bool,
    (a, b, n): (&[f32], &[f32], usize),
    call: impl FnOnce() -> Result<(Vec<f32>, Variant)>,
) -> Result<Sample> {
    let start = std::time::Instant::now();
    let (c, variant) = call()?;
    let wall = start.elapsed().as_secs_f64();
    let ok = !check || verify_sampled(a, b, &c, (n, n, n), 64, f32_bound).is_ok();
    Ok((wall, ok, format!("wall time, {variant}")))
}

/// Shapes no set above holds and the tuner never times (`--filter matmul-unseen`, never in a
/// plain run): a matrix-vector product and skinny products of model layers, a language model's
/// output head (GPT-2 XL's: 1,600 wide, a vocabulary of 50,257, so N is ragged), a ragged cube,
/// a wide rectangle, a product with a C of 128 columns, and two mid-size products with K and N
/// both ragged (the lowest against PyTorch: BENCHMARKS.md, "Ragged operands: copied or read in
/// place").
pub const UNSEEN: [(usize, usize, usize); 11] = [
    (1, 11008, 4096),
    (1, 1600, 50257),
    (4, 14336, 4096),
    (32, 4096, 11008),
    (64, 11008, 4096),
    (8192, 8192, 128),
    (777, 1234, 2345),
    (2048, 8192, 2048),
    (4096, 4096, 11008),
    (1000, 1001, 1003),
    (3000, 5001, 701),
];

/// `Selection::Auto` on each f32 shape, as a user's call gets it; the plan column says which
/// variant, tile and who chose them.
fn f32_shapes(b: &mut Bench<'_>, prefix: &str, shapes: &[(usize, usize, usize)]) -> Result<()> {
    let gpu = b.gpu;
    for &(m, k, n) in shapes {
        let name = format!("{prefix}/{m}x{k}x{n}");
        // Operands only for a case that runs: a filter that names one shape makes no others'.
        if !b.measures(&name) {
            continue;
        }
        let shape = Shape::new(m, k, n)?;
        let (a, bm) = (rand_f32(m * k, 3), rand_f32(k * n, 4));
        let (da, db) = (gpu.upload("A", &a).wait()?, gpu.upload("B", &bm).wait()?);
        let dc = gpu.alloc::<f32>("C", m * n).wait()?;
        b.measure_back_to_back(
            &name,
            format!("{m}×{k}×{n}"),
            4 * (m * k + k * n + m * n) as u64,
            shape.flops(),
            Bound::Compute,
            |check| {
                let run = gpu
                    .matmul_on_device(&da, &db, &dc, shape, &Selection::Auto)
                    .wait()?;
                let ok = !check || {
                    let c = gpu.read(&dc).wait()?;
                    verify_sampled(&a, &bm, &c, (m, k, n), 64, f32_bound).is_ok()
                };
                Ok((
                    run.timing.seconds,
                    ok,
                    format!("{} {} ({})", run.variant, run.tile, run.chosen_by),
                ))
            },
        )?;
    }
    Ok(())
}

/// The f16 shapes (full size): the squares of the tensor-core issue, a ragged one and the small-M
/// and skinny shapes users meet (an A of 16 rows, a C of 64 columns).
pub const F16_SHAPES: [(usize, usize, usize); 9] = [
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4095, 4095, 4095),
    (3000, 5000, 700),
    (1, 4096, 4096),
    (16, 4096, 4096),
    (128, 4096, 4096),
    (8192, 8192, 64),
    (2048, 2048, 2048),
];

/// The ceiling a variant's figure sits beside: the matrix units' for the cooperative kernel, the
/// FMA units' for the others.
fn bound(v: Variant) -> Bound {
    if v == Variant::COOP {
        Bound::Matrix
    } else {
        Bound::Compute
    }
}

/// f16 operands for an M×K×N product (the values as f32 too, for the reference).
struct F16Operands {
    a: Vec<f32>,
    b: Vec<f32>,
    da: DeviceBuffer<f16>,
    db: DeviceBuffer<f16>,
    dc: DeviceBuffer<f16>,
}

impl F16Operands {
    fn new(gpu: &Gpu, (m, k, n): (usize, usize, usize)) -> Result<F16Operands> {
        let round = |v: Vec<f32>| -> Vec<f16> { v.into_iter().map(f16::from_f32).collect() };
        let (a16, b16) = (round(rand_f32(m * k, 7)), round(rand_f32(k * n, 8)));
        Ok(F16Operands {
            a: a16.iter().map(|x| x.to_f32()).collect(),
            b: b16.iter().map(|x| x.to_f32()).collect(),
            da: gpu.upload("A", &a16).wait()?,
            db: gpu.upload("B", &b16).wait()?,
            dc: gpu.alloc::<f16>("C", m * n).wait()?,
        })
    }

    fn verify(&self, gpu: &Gpu, dims: (usize, usize, usize)) -> Result<bool> {
        let c: Vec<f32> = gpu
            .read(&self.dc)
            .wait()?
            .iter()
            .map(|x| x.to_f32())
            .collect();
        Ok(verify_sampled(&self.a, &self.b, &c, dims, 64, f16_bound).is_ok())
    }
}

/// `matmul-f16/`: every f16 variant the adapter has on one square, every cooperative tile there
/// (the autotuner's raw material), then the variant chosen for each of [`F16_SHAPES`].
fn f16_cases(b: &mut Bench<'_>) -> Result<()> {
    let gpu = b.gpu;
    if !b.available("matmul-f16/", wgpu::Features::SHADER_F16) {
        return Ok(());
    }
    let n = b.pick(128, 4096);
    let shape = Shape::new(n, n, n)?;
    let mut runs: Vec<(Variant, Option<(String, Tile)>)> = Vec::new();
    for v in Variant::all().filter(|v| v.precision() == Precision::F16) {
        let name = format!("matmul-f16/{}", v.name());
        if !b.available(&name, v.needs()) {
            continue;
        }
        runs.push((v, None));
        if v == Variant::COOP {
            if let Some(t) = v.tiling(shape, &gpu.caps())? {
                for c in gpu.planner().analyse(t.as_ref()) {
                    if c.refused.is_none() {
                        runs.push((v, Some((c.label.clone(), c.tile()))));
                    }
                }
            }
        }
    }
    let name = |v: Variant, tile: &Option<(String, Tile)>| {
        format!(
            "matmul-f16/{}{}",
            v.name(),
            tile.as_ref()
                .map(|(label, _)| format!("/{label}"))
                .unwrap_or_default()
        )
    };
    runs.retain(|(v, tile)| b.measures(&name(*v, tile)));
    // The square's operands only where a case on it runs (`--filter` for one shape below makes
    // none: 96 MiB and 33 million random numbers at 4096).
    if !runs.is_empty() {
        let ops = F16Operands::new(gpu, (n, n, n))?;
        for (v, tile) in runs {
            b.measure_back_to_back(
                &name(v, &tile),
                format!("{n}³"),
                6 * (n * n) as u64,
                shape.flops(),
                bound(v),
                |check| {
                    let run = gpu
                        .matmul_on_device(&ops.da, &ops.db, &ops.dc, shape, &forced(v, &tile))
                        .wait()?;
                    let ok = !check || ops.verify(gpu, (n, n, n))?;
                    Ok((run.timing.seconds, ok, run.tile))
                },
            )?;
        }
    }
    let shapes: &[(usize, usize, usize)] = b.pick(&QUICK_SHAPES, &F16_SHAPES);
    f16_shapes(b, "matmul-f16/shape", shapes)
}

/// `Selection::Auto` on each f16 shape (f32 accumulation), as a user's call gets it.
fn f16_shapes(b: &mut Bench<'_>, prefix: &str, shapes: &[(usize, usize, usize)]) -> Result<()> {
    let gpu = b.gpu;
    for &(m, k, n) in shapes {
        let name = format!("{prefix}/{m}x{k}x{n}");
        if !b.measures(&name) {
            continue;
        }
        let shape = Shape::new(m, k, n)?;
        let ops = F16Operands::new(gpu, (m, k, n))?;
        let chosen =
            tilekit::kernels::matmul::select(gpu, shape, Precision::F16, &Selection::Auto)?;
        b.measure_back_to_back(
            &name,
            format!("{m}×{k}×{n}"),
            2 * (m * k + k * n + m * n) as u64,
            shape.flops(),
            bound(chosen.variant),
            |check| {
                let run = gpu
                    .matmul_on_device(&ops.da, &ops.db, &ops.dc, shape, &Selection::Auto)
                    .wait()?;
                let ok = !check || ops.verify(gpu, (m, k, n))?;
                Ok((
                    run.timing.seconds,
                    ok,
                    format!("{} {} ({})", run.variant, run.tile, run.chosen_by),
                ))
            },
        )?;
    }
    Ok(())
}

/// `--filter matmul-sweep` (never in a plain run): every fast variant on every shape, and every
/// pipelined tile on a few, to set the selection's thresholds from measurements.
fn sweep(b: &mut Bench<'_>) -> Result<()> {
    let gpu = b.gpu;
    let shapes: &[(usize, usize, usize)] = b.pick(&QUICK_SHAPES, &SHAPES);
    for &(m, k, n) in shapes {
        let shape = Shape::new(m, k, n)?;
        let (a, bm) = (rand_f32(m * k, 3), rand_f32(k * n, 4));
        let (da, db) = (gpu.upload("A", &a).wait()?, gpu.upload("B", &bm).wait()?);
        let dc = gpu.alloc::<f32>("C", m * n).wait()?;
        let mut runs: Vec<(Variant, Option<(String, Tile)>)> =
            vec![(Variant::BLOCKED, None), (Variant::PIPELINED, None)];
        if m <= 256 {
            runs.push((Variant::GEMV, None));
        }
        if [
            (4096, 4096, 4096),
            (128, 4096, 4096),
            (8192, 8192, 64),
            (64, 65536, 64),
        ]
        .contains(&(m, k, n))
            || b.cfg.quick
        {
            let tiling = Variant::PIPELINED.tiling(shape, &gpu.caps())?;
            if let Some(t) = tiling {
                for c in gpu.planner().analyse(t.as_ref()) {
                    if c.refused.is_none() {
                        runs.push((Variant::PIPELINED, Some((c.label.clone(), c.tile()))));
                    }
                }
            }
        }
        for (v, tile) in runs {
            let name = format!(
                "matmul-sweep/{m}x{k}x{n}/{}{}",
                v.name(),
                tile.as_ref()
                    .map(|(label, _)| format!("/{label}"))
                    .unwrap_or_default()
            );
            b.measure_back_to_back(
                &name,
                format!("{m}×{k}×{n}"),
                4 * (m * k + k * n + m * n) as u64,
                shape.flops(),
                Bound::Compute,
                |check| {
                    let run = gpu
                        .matmul_on_device(&da, &db, &dc, shape, &forced(v, &tile))
                        .wait()?;
                    let ok = !check || {
                        let c = gpu.read(&dc).wait()?;
                        verify_sampled(&a, &bm, &c, (m, k, n), 64, f32_bound).is_ok()
                    };
                    Ok((
                        run.timing.seconds,
                        ok,
                        format!("{} {}", run.variant, run.tile),
                    ))
                },
            )?;
        }
    }
    Ok(())
}

/// `v` with the candidate `tile` (a bench case's, named by its label), or as the planner sizes it.
fn forced(v: Variant, tile: &Option<(String, Tile)>) -> Selection {
    match tile {
        Some((_, tile)) => Selection::Forced {
            variant: v,
            tile: tile.clone(),
        },
        None => Selection::Variant(v),
    }
}
