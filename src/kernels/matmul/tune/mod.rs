//! The autotuner (`tilekit tune`): for each shape of a shape set, every fast variant the adapter
//! runs at that precision and every candidate tile the planner says fits, timed warm (median
//! after a warm-up, GPU timestamps where available) and checked on sampled elements against f64;
//! the winner per shape bucket ([`TuneKey`]) is kept in a versioned cache file under the user's
//! cache directory, keyed by the adapter (name, backend, driver). The cache is the library's:
//! [`Gpu::select_matmul`] reads it for `Selection::Auto` whether or not the command line is
//! built (`chosen_by: tuner`), the planner's rules otherwise. A corrupt, foreign or stale file is
//! ignored (with a `log` warning). In a browser there is no cache file: the planner decides.
//!
//! The lesson kernels (naive, tiled) are not candidates: they teach, they never win.

mod cache;

pub use cache::{
    adapter_key, cache_path, measured_defaults, shipped_rates, Measured, Table, TuneKey,
    VariantRates, Winner, VERSION,
};
pub(crate) use cache::{load, Tuning};

use super::{
    f16_bound, f32_bound, verify_sampled, MatmulRun, Precision, Selection, Shape, Variant,
};
use crate::plan::{ChosenBy, Rates};
use crate::{DeviceBuffer, Error, Gpu, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// One timed candidate.
#[derive(Clone, Debug, Serialize)]
pub struct Trial {
    /// The shape.
    pub shape: Shape,
    /// The variant.
    pub variant: Variant,
    /// The tile (`None`: the variant has none).
    pub tile: Option<String>,
    /// Median seconds.
    pub seconds: f64,
    /// Sampled elements matched f64.
    pub verified: bool,
}

/// What tuning one shape found.
#[derive(Clone, Debug, Serialize)]
pub struct Tuned {
    /// The bucket.
    pub bucket: TuneKey,
    /// Every candidate timed.
    pub trials: Vec<Trial>,
    /// The winner.
    pub winner: Winner,
}

/// The fast variants at `precision`, in the order they are tried.
fn contenders(precision: Precision) -> Vec<Variant> {
    Variant::all()
        .filter(|v| v.precision() == precision)
        .filter(|v| *v != Variant::NAIVE && *v != Variant::TILED)
        .collect()
}

/// Every (variant, tile) the adapter can run for `shape`.
pub fn candidates(gpu: &Gpu, shape: Shape, precision: Precision) -> Vec<(Variant, Option<String>)> {
    let mut all = Vec::new();
    for v in contenders(precision) {
        if !v.worth_tuning(shape) {
            continue;
        }
        if gpu.plan_matmul(v, shape, None).is_err() {
            continue;
        }
        match v.tiling(shape, &gpu.caps()) {
            Ok(Some(t)) => all.extend(
                gpu.planner()
                    .analyse(t.as_ref())
                    .into_iter()
                    .filter(|c| c.refused.is_none())
                    .map(|c| (v, Some(c.label))),
            ),
            Ok(None) => all.push((v, None)),
            Err(_) => {}
        }
    }
    all
}

/// A shape's operands on the device, in the precision being tuned.
enum Operands {
    F32(DeviceBuffer<f32>, DeviceBuffer<f32>, DeviceBuffer<f32>),
    F16(
        DeviceBuffer<half::f16>,
        DeviceBuffer<half::f16>,
        DeviceBuffer<half::f16>,
    ),
}

impl Operands {
    /// One untimed product with `sel` (its pipelines built on the way).
    #[cfg(not(target_arch = "wasm32"))]
    async fn run(&self, gpu: &Gpu, shape: Shape, sel: &Selection) -> Result<()> {
        match self {
            Operands::F32(a, b, c) => gpu.matmul_on_device(a, b, c, shape, sel).await?,
            Operands::F16(a, b, c) => gpu.matmul_on_device(a, b, c, shape, sel).await?,
        };
        Ok(())
    }

    /// `sel` timed warm, and C read back as f32 ([`Gpu::measure_matmul`]).
    async fn measure(
        &self,
        gpu: &Gpu,
        shape: Shape,
        sel: &Selection,
    ) -> Result<(crate::Measured<MatmulRun>, Vec<f32>)> {
        match self {
            Operands::F32(a, b, c) => gpu.measure_matmul((a, b, c), shape, sel).await,
            Operands::F16(a, b, c) => gpu.measure_matmul((a, b, c), shape, sel).await,
        }
    }
}

/// The selection that runs `v` with the tile labelled `label` (the tuner lists and records
/// candidates by their labels, the cache file's form), or `v` as the planner sizes it, for a
/// variant with no tile.
fn selection(gpu: &Gpu, shape: Shape, v: Variant, label: Option<&str>) -> Result<Selection> {
    gpu.selection_named(shape, v.precision(), Some(v), label)
}

/// Bytes one untimed call of [`build_first`] may hold on the device beyond the operands, times
/// the calls in flight at once: the threads are as many as fit under this.
#[cfg(not(target_arch = "wasm32"))]
const BUILD_BYTES: u64 = 1 << 30;

/// Run every candidate once, untimed, on several threads at once, before any is timed: each
/// first call builds its pipelines, and a driver with a cold shader cache (NVIDIA's on a fresh
/// machine) takes a second or more for some of them. Built one by one inside the timing, those
/// builds left the GPU idle long enough that every candidate got the long warm-up after an idle
/// stretch (`Gpu::warm_up_seconds`), and a tune on a fresh machine took twice as long as one
/// with the driver's cache warm (BENCHMARKS.md, "Warm up by time"). The threads are bounded by
/// the cores and by [`BUILD_BYTES`] over what one call may allocate (padded copies of A and B,
/// C's split-K partials), so that a large shape builds one at a time. Builds that took longer
/// than an idle stretch leave the GPU counted as idle: the first candidate timed after them gets
/// the long warm-up, or it reads several times its time.
#[cfg(not(target_arch = "wasm32"))]
fn build_first(
    gpu: &Gpu,
    operands: &Operands,
    shape: Shape,
    list: &[(Variant, Option<String>)],
) -> Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let (m, k, n) = (shape.m as u64, shape.k as u64, shape.n as u64);
    // f32 at most per element; the partials of up to 8 slices of K.
    let call_bytes = 4 * (m * k + k * n + 8 * m * n);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = (BUILD_BYTES / call_bytes.max(1))
        .min(cores as u64)
        .min(8)
        .min(list.len() as u64)
        .max(1) as usize;
    let start = std::time::Instant::now();
    let next = AtomicUsize::new(0);
    let work = || -> Result<()> {
        while let Some((v, tile)) = list.get(next.fetch_add(1, Ordering::Relaxed)) {
            let sel = selection(gpu, shape, *v, tile.as_deref())?;
            crate::gpu::block_on(operands.run(gpu, shape, &sel))?;
        }
        Ok(())
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })?;
    if start.elapsed().as_secs_f64() > crate::gpu::IDLE_SECONDS {
        gpu.count_as_idle();
    }
    Ok(())
}

/// Blocking [`tune_shape_async`].
#[cfg(not(target_arch = "wasm32"))]
pub fn tune_shape(
    gpu: &Gpu,
    shape: Shape,
    precision: Precision,
    progress: impl FnMut(&str),
) -> Result<Tuned> {
    crate::gpu::block_on(tune_shape_async(gpu, shape, precision, progress))
}

/// Time every candidate for `shape` (calling `progress` before each) and return the winner.
/// Natively each candidate first runs once, untimed, on several threads at once (its pipelines
/// built before any is timed; this blocks, as native waits on the GPU do); in a browser the
/// first timed call builds them.
pub async fn tune_shape_async(
    gpu: &Gpu,
    shape: Shape,
    precision: Precision,
    mut progress: impl FnMut(&str),
) -> Result<Tuned> {
    let (m, k, n) = shape.dims();
    let a = crate::random::uniform_f32(m * k, 21);
    let b = crate::random::uniform_f32(k * n, 22);
    // f16 operands hold the f32 values rounded, and the reference uses the rounded values.
    let round =
        |v: &[f32]| -> Vec<half::f16> { v.iter().map(|&x| half::f16::from_f32(x)).collect() };
    let (a16, b16) = (round(&a), round(&b));
    let widen = |v: &[half::f16]| -> Vec<f32> { v.iter().map(|x| x.to_f32()).collect() };
    let (ar, br) = match precision {
        Precision::F32 => (a.clone(), b.clone()),
        Precision::F16 => (widen(&a16), widen(&b16)),
    };
    let bound = match precision {
        Precision::F32 => f32_bound,
        Precision::F16 => f16_bound,
    };
    // The operands are uploaded once for every candidate of the shape.
    let operands = match precision {
        Precision::F32 => Operands::F32(
            gpu.upload("A", &a).await?,
            gpu.upload("B", &b).await?,
            gpu.alloc::<f32>("C", m * n).await?,
        ),
        Precision::F16 => Operands::F16(
            gpu.upload("A", &a16).await?,
            gpu.upload("B", &b16).await?,
            gpu.alloc::<half::f16>("C", m * n).await?,
        ),
    };
    let list = candidates(gpu, shape, precision);
    #[cfg(not(target_arch = "wasm32"))]
    build_first(gpu, &operands, shape, &list)?;
    let time = async |v: Variant, tile: Option<&str>| -> Result<(f64, bool)> {
        let sel = selection(gpu, shape, v, tile)?;
        let (run, c) = operands.measure(gpu, shape, &sel).await?;
        let ok = verify_sampled(&ar, &br, &c, (m, k, n), 16, bound).is_ok();
        Ok((run.median, ok))
    };
    let mut trials = Vec::new();
    for (v, tile) in list {
        progress(&format!(
            "{shape} {v}{}",
            tile.as_deref().map(|t| format!(" {t}")).unwrap_or_default()
        ));
        let (seconds, verified) = time(v, tile.as_deref()).await?;
        trials.push(Trial {
            shape,
            variant: v,
            tile,
            seconds,
            verified,
        });
    }
    let planner = {
        let choice = gpu.planner_choice(shape, precision)?;
        let tile = gpu
            .plan_matmul(choice, shape, None)?
            .map(|p| p.choice().label.clone());
        match trials
            .iter()
            .find(|t| t.variant == choice && t.tile == tile)
        {
            Some(t) => t.seconds,
            None => time(choice, tile.as_deref()).await?.0,
        }
    };
    let best = trials
        .iter()
        .filter(|t| t.verified)
        .min_by(|x, y| x.seconds.total_cmp(&y.seconds))
        .ok_or_else(|| Error::Verification {
            what: format!("every matmul candidate at {shape}"),
            detail: "no candidate matched the f64 reference".into(),
        })?;
    Ok(Tuned {
        bucket: TuneKey::of(shape, precision),
        winner: Winner {
            variant: best.variant,
            tile: best.tile.clone(),
            seconds: best.seconds,
            planner_seconds: planner,
            shape: shape.to_string(),
        },
        trials,
    })
}

/// Full waves each tile timed at a shape must run for its time there to give a rate: enough that
/// the last, partial wave weighs a quarter at most. On the H100 the f32 shape set has three such
/// shapes, 4095³, 4096³ and 8192³; 2048³ (a single, partial wave of 128×256 blocks) is not one.
/// The planner never shares K out evenly at this many waves ([`crate::plan::SHARES_MAX_WAVES`]),
/// so these trials time each block in its own form.
pub const RATE_WAVES: u64 = 3;

/// What `results` measured of how fast each tile's code runs, for the planner's wave model
/// (`Scoring::Waves`), which sees how a launch's workgroups fill the GPU but not how fast a
/// block runs once they do (a 128×256 block of the pipelined kernel runs the large squares faster
/// per FMA than a 64×64 one at the same 8×8 per invocation). For each variant with tiles: at
/// every shape where each tile it timed matched f64 and ran at least [`RATE_WAVES`] full waves of
/// the workgroups a multiprocessor holds, the fastest tile's time over each tile's; per tile the
/// geometric mean over those shapes, scaled so that the fastest tile's rate is 1. Several
/// shapes, because one large square's time moves between runs. A rate also carries what the
/// model counts itself, how well a block hides latency, so a block it already marks down for
/// that is marked down twice; on shapes no tune used, the blocks this keeps out were never the
/// fastest (BENCHMARKS.md, "Measured rates for the wave model"). Empty where no shape was large
/// enough (`tune --quick`).
pub fn rates(gpu: &Gpu, results: &[Tuned]) -> VariantRates {
    let mps = gpu.profile.multiprocessors.unwrap_or(16).max(1) as u64;
    let fills = |t: &Trial| {
        t.verified
            && t.tile.as_deref().is_some_and(|label| {
                let Ok(Selection::Forced { tile, .. }) =
                    selection(gpu, t.shape, t.variant, Some(label))
                else {
                    return false;
                };
                gpu.plan_matmul(t.variant, t.shape, Some((&tile, ChosenBy::Forced)))
                    .ok()
                    .flatten()
                    .is_some_and(|p| {
                        let c = p.choice();
                        c.workgroups / (mps * c.residency.workgroups.max(1) as u64) >= RATE_WAVES
                    })
            })
    };
    let mut out = VariantRates::new();
    for variant in Variant::all() {
        // Per tile, the logarithms of its relative speed at each shape that qualifies.
        let mut logs: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for r in results {
            let trials: Vec<&Trial> = r
                .trials
                .iter()
                .filter(|t| t.variant == variant && t.tile.is_some())
                .collect();
            if trials.len() < 2 || !trials.iter().all(|t| fills(t)) {
                continue;
            }
            let fastest = trials
                .iter()
                .map(|t| t.seconds)
                .fold(f64::INFINITY, f64::min);
            for t in trials {
                let tile = t.tile.clone().expect("filtered");
                logs.entry(tile)
                    .or_default()
                    .push((fastest / t.seconds).ln());
            }
        }
        let means: Rates = logs
            .into_iter()
            .map(|(tile, l)| (tile, (l.iter().sum::<f64>() / l.len() as f64).exp()))
            .collect();
        let top = means.values().copied().fold(0.0, f64::max);
        if top > 0.0 {
            out.insert(
                variant.name().to_string(),
                means.into_iter().map(|(t, m)| (t, m / top)).collect(),
            );
        }
    }
    out
}

/// The cache file's new text: `results` added for this adapter, with the rates they measured
/// ([`rates`]); other adapters' entries are kept, a corrupt or stale file is replaced. The caller
/// writes it to [`cache_path`].
pub fn merged(gpu: &Gpu, results: &[Tuned]) -> Result<String> {
    let winners = results.iter().map(|r| (r.bucket, r.winner.clone()));
    cache::merge(gpu, winners, rates(gpu, results))
}
