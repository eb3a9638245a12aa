//! The matmul lessons of the tour: 02, naive against tiled against blocked (the
//! compute-to-global-memory-access ratio, PMPP 4.2-4.6), 03, tile sizes from the limits
//! (memory as a limiting factor to parallelism, PMPP 4.7), and 11, the same tiling feeding the
//! matrix units (tensor cores) with f16 operands.

use crate::lesson::{rand_f32, size_note, Chart, Lesson, Report, Size};
use tilekit::kernels::matmul::tiled::TiledTiling;
use tilekit::kernels::matmul::{
    f32_bound, verify, verify_sampled, Precision, Selection, Shape, Variant,
};
use tilekit::limits::{DeviceProfile, Limits};
use tilekit::plan::{residency, KernelUse, Planner};
use tilekit::{Gpu, Result};

/// The family's lessons.
pub const LESSONS: [Lesson; 3] = [
    Lesson {
        number: 2,
        name: "tiled matmul",
        run: |gpu, size| Box::pin(tiled_matmul(gpu, size)),
    },
    Lesson {
        number: 3,
        name: "tile from limits",
        run: |gpu, size| Box::pin(tile_from_limits(gpu, size)),
    },
    Lesson {
        number: 11,
        name: "tensor cores",
        run: |gpu, size| Box::pin(tensor_cores(gpu, size)),
    },
];

/// 02: naive against tiled (and register-blocked) matrix multiply.
pub async fn tiled_matmul(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "02 naive vs tiled matmul (PMPP 4.2-4.6)",
        "The naive kernel reads a row of A and a column of B from global memory for every element of C: one multiply-add per two loads. Tiling stages TILE×TILE tiles in workgroup memory so each loaded value serves TILE multiply-adds; register blocking makes each value read from workgroup memory serve several more from registers.",
        gpu,
    );
    r.quote("shaders/matmul.wgsl", tilekit::shaders::MATMUL);
    let n = size.pick(96, 2048);
    let a = rand_f32(n * n, 1);
    let b = rand_f32(n * n, 2);
    let (exact, mag) = if size == Size::Quick {
        tilekit::kernels::matmul::reference(&a, &b, n, n, n)
    } else {
        (vec![], vec![])
    };
    let (da, db) = (gpu.upload("A", &a).await?, gpu.upload("B", &b).await?);
    let dc = gpu.alloc::<f32>("C", n * n).await?;
    let shape = Shape::new(n, n, n)?;
    let mut ratio = Chart {
        title: "global loads: FLOPs per element loaded".into(),
        unit: "FLOP/load".into(),
        bars: vec![],
        against: "predicted",
    };
    let mut speed = Chart {
        title: format!("{n}³ speed"),
        unit: "GFLOP/s".into(),
        bars: vec![],
        against: "predicted",
    };
    // Each kernel checked on its own poisoned C, then the three timed side by side, in rounds
    // (Gpu::measure_side_by_side), each round's runs back to back as the tuner times them.
    let variants = [Variant::NAIVE, Variant::TILED, Variant::BLOCKED];
    for v in variants {
        gpu.fill(&dc, tilekit::POISON).await?;
        gpu.matmul_on_device(&da, &db, &dc, shape, &Selection::Variant(v))
            .await?;
        let c = gpu.read(&dc).await?;
        r.verified &= if exact.is_empty() {
            verify_sampled(
                &a,
                &b,
                &c,
                (n, n, n),
                64,
                tilekit::kernels::matmul::f32_bound,
            )
            .is_ok()
        } else {
            verify(&c, &exact, &mag, n).is_ok()
        };
    }
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::BackToBack,
            variants.len(),
            async |i| {
                gpu.matmul_on_device(&da, &db, &dc, shape, &Selection::Variant(variants[i]))
                    .await
            },
            |r| r.timing.seconds,
        )
        .await?;
    let naive = &measured[0];
    let mut gaps = Vec::new();
    for (v, m) in variants.into_iter().zip(&measured) {
        let run = &m.run;
        let predicted = run.plan.as_ref().map_or(1.0, |p| p.choice().reuse);
        let against = if v == Variant::NAIVE {
            "the baseline".to_string()
        } else {
            m.against(naive).than("naive")
        };
        r.line(format!(
            "{:<8} {:<20} ratio {:>6.1} FLOP/load (predicted {:>5.1}) | {:>10} {:>14} | {against}",
            v.name(),
            run.tile,
            run.ratio,
            predicted,
            crate::units::time(m.median),
            crate::units::flops(run.flops as f64 / m.median),
        ));
        ratio
            .bars
            .push((v.name().into(), run.ratio, Some(predicted)));
        // The prediction is a whole tile's reuse (PMPP 4.4); a tile that reaches past C's edge
        // loads for outputs that are not there, and the measured ratio falls short of it.
        if run.ratio < 0.99 * predicted {
            gaps.push(format!(
                "{}: measured {:.0} against {:.0} predicted: the prediction is the reuse of a {} tile that lies wholly inside C; at {n}³ the tiles reach past C's edge, where their loads serve no output",
                v.name(),
                run.ratio,
                predicted,
                run.tile
            ));
        }
        speed.bars.push((v.name().into(), run.gflops(), None));
        if v == Variant::TILED {
            r.key = format!("tiling cuts global loads {:.0}x", run.ratio);
        }
    }
    for g in gaps {
        r.line(g);
    }
    traced_loads(&mut r);
    r.charts = vec![ratio, speed];
    r.line(format!("{n}³{}", size_note(gpu, size)));
    Ok(r)
}

/// The residency chart of PMPP 4.7 for one candidate: how many workgroups a multiprocessor
/// could hold under each resource alone; the least of them is what it holds, and that resource
/// is the one that limits it.
/// The loads themselves, counted by the tracer at a ragged 33×47×29 (the same on every adapter):
/// naive, every multiply-add loads its A and B elements, 2·M·N·K loads; tiled, each tile of A is
/// loaded once per column of workgroups and each of B once per row, M·K·⌈N/T⌉ + K·N·⌈M/T⌉.
fn traced_loads(r: &mut Report) {
    let (m, k, n, t) = (33u64, 47u64, 29u64, 16u64);
    let case = crate::exercise::traced::matmul(m as u32, k as u32, n as u32);
    let mut naive = case.setup.clone();
    naive.entry = "naive".into();
    naive.overrides.clear();
    let src = tilekit::shaders::MATMUL;
    let path = "shaders/matmul.wgsl";
    match (
        crate::trace::trace(src, path, &naive),
        crate::trace::trace(src, path, &case.setup),
    ) {
        (Ok(a), Ok(b)) => {
            let (na, ta) = (a.global_loads(), b.global_loads());
            let (pa, pb) = (2 * m * n * k, m * k * n.div_ceil(t) + k * n * m.div_ceil(t));
            r.verified &= na == pa && ta == pb && a.clean() && b.clean();
            r.line(format!(
                "traced at {m}×{k}×{n}: naive {na} global loads (predicted 2·M·N·K = {pa}), tiled {ta} (predicted M·K·⌈N/16⌉ + K·N·⌈M/16⌉ = {pb}): {:.1}× fewer; counts, unlike times, are the same on every GPU",
                na as f64 / ta as f64
            ));
        }
        (Err(e), _) | (_, Err(e)) => {
            r.verified = false;
            r.line(format!("the trace failed: {e}"));
        }
    }
}

fn residency_chart(title: String, profile: &DeviceProfile, usage: KernelUse) -> Chart {
    let res = residency(profile, usage);
    let cap = |v: u32| if v == u32::MAX { None } else { Some(v as f64) };
    Chart {
        title: format!(
            "{title}: {} per multiprocessor, limited by {}",
            tilekit::plan::workgroups(res.workgroups),
            res.binding.name()
        ),
        unit: "workgroups".into(),
        bars: [
            ("threads", res.by_threads),
            ("registers", res.by_registers),
            ("workgroup memory", res.by_memory),
            ("slots", res.by_slots),
        ]
        .into_iter()
        .filter_map(|(n, v)| cap(v).map(|v| (n.to_string(), v, None)))
        .collect(),
        against: "predicted",
    }
}

/// 03: the planner under WebGPU's baseline, this adapter, and the book's device D.
pub async fn tile_from_limits(gpu: &Gpu, _size: Size) -> Result<Report> {
    let mut r = Report::new(
        "03 tile size from limits (PMPP 4.7)",
        "Registers and shared memory limit how many threads a multiprocessor holds; a program reads the device's limits and sizes its tiles from them instead of compiling a constant in.",
    );
    let k = TiledTiling::new(Shape {
        m: 4096,
        k: 4096,
        n: 4096,
    });
    for (name, limits, profile) in [
        (
            "WebGPU baseline",
            Limits::webgpu_default(),
            gpu.profile.clone(),
        ),
        ("this adapter", gpu.limits().clone(), gpu.profile.clone()),
        (
            "book device D",
            gpu.limits().clone(),
            DeviceProfile::book_device_d(),
        ),
    ] {
        let plan = Planner::new(limits, profile).plan(&k)?;
        r.line(format!(
            "{name:<16} → {}: {}",
            plan.choice().label,
            plan.why
        ));
    }
    let d = DeviceProfile::book_device_d();
    let reg = tilekit::plan::max_registers_for_full_residency(&d);
    let eleven = residency(
        &d,
        KernelUse {
            invocations: 512,
            workgroup_bytes: 0,
            registers: 11,
        },
    );
    let tile16 = KernelUse {
        invocations: 256,
        workgroup_bytes: 2048,
        registers: 10,
    };
    let tile = residency(&d, tile16);
    r.line(format!(
        "book: 10 registers for full residency | computed {reg}"
    ));
    r.line(format!(
        "book: 11 registers, 512-thread blocks → 1024 resident | computed {}",
        eleven.resident_invocations
    ));
    r.line(format!(
        "book: 16×16 tiles bind on threads at 6 blocks, 12 KiB used | computed {} on {}, {} KiB",
        tile.workgroups,
        tile.binding.name(),
        tile.workgroup_bytes_used / 1024
    ));
    r.verified = reg == 10
        && eleven.resident_invocations == 1024
        && tile.workgroups == 6
        && tile.workgroup_bytes_used == 12 * 1024;
    // The book's figure assumes 10 registers a thread; tilekit's tiled kernel is estimated at
    // more, so on the same device it holds fewer workgroups: both are shown, each named.
    let ours = Planner::new(gpu.limits().clone(), d.clone())
        .plan(&k)?
        .candidates
        .into_iter()
        .find(|c| c.label == "TILE=16")
        .expect("TILE=16 is a candidate");
    let ours_res = residency(&d, ours.usage);
    r.line(format!(
        "device D at TILE=16: the book's 10 registers a thread hold {} (limited by {}); tilekit's tiled kernel, estimated at {} registers, {} (limited by {}). A resource \"limits\" the count when it is the first to run out.",
        tilekit::plan::workgroups(tile.workgroups),
        tile.binding.name(),
        ours.usage.registers,
        tilekit::plan::workgroups(ours_res.workgroups),
        ours_res.binding.name()
    ));
    let here = gpu.planner().plan(&k)?;
    r.charts = vec![
        residency_chart(
            "book device D, TILE=16, the book's 10 registers".into(),
            &d,
            tile16,
        ),
        residency_chart(
            format!(
                "book device D, TILE=16, tilekit's kernel at {} registers",
                ours.usage.registers
            ),
            &d,
            ours.usage,
        ),
        residency_chart(
            format!(
                "{} ({} profile), {}",
                gpu.summary.name,
                gpu.profile.name,
                here.choice().label
            ),
            &gpu.profile,
            here.choice().usage,
        ),
    ];
    r.key = format!("{} on this adapter", here.choice().label);
    Ok(r)
}

/// 11: the tiling of lesson 02 feeding the matrix units: f32 blocked against f16 on the scalar
/// units against f16 cooperative matrices, with the error bound f16 inputs allow.
pub async fn tensor_cores(gpu: &Gpu, size: Size) -> Result<Report> {
    use half::f16;
    let mut r = Report::timed(
        "11 tensor cores: f16 and cooperative matrices",
        "Matrix units multiply whole 16×16 fragments per instruction. The tiling is lesson 02's: a workgroup stages slices of A and B in workgroup memory, but each subgroup now holds 16×16 f32 accumulator fragments instead of an 8×8 register tile per invocation, and one cooperative multiply-add does 4,096 multiply-adds. f16 operands halve the bytes loaded; accumulating in f32 keeps the error near the f32 bound plus the rounding of the inputs (2⁻¹¹ each) and of C.",
        gpu,
    );
    r.quote("shaders/matmul_coop.wgsl", tilekit::shaders::MATMUL_COOP);
    let n = size.pick(64, 4096);
    let shape = Shape::new(n, n, n)?;
    let a = rand_f32(n * n, 11);
    let b = rand_f32(n * n, 12);
    // The f16 kernels see the inputs rounded to f16; the reference is computed from those.
    let (a16, b16): (Vec<f16>, Vec<f16>) = (
        a.iter().map(|&x| f16::from_f32(x)).collect(),
        b.iter().map(|&x| f16::from_f32(x)).collect(),
    );
    let ah: Vec<f32> = a16.iter().map(|x| x.to_f32()).collect();
    let bh: Vec<f32> = b16.iter().map(|x| x.to_f32()).collect();
    let mut speed = Chart {
        title: format!("{n}³ speed"),
        unit: "GFLOP/s".into(),
        bars: vec![],
        against: "predicted",
    };
    let (da, db) = (gpu.upload("A", &a).await?, gpu.upload("B", &b).await?);
    let dc = gpu.alloc::<f32>("C", n * n).await?;
    let (da16, db16) = (gpu.upload("A", &a16).await?, gpu.upload("B", &b16).await?);
    let dc16 = gpu.alloc::<f16>("C", n * n).await?;
    // f32 on the scalar units: the blocked kernel of lesson 02, and the fast one where it fits.
    // f16 on the scalar units (SHADER_F16), then on the matrix units (cooperative matrices),
    // where the adapter has them. (f16?, variant) of each call.
    let f32_variant =
        tilekit::kernels::matmul::select(gpu, shape, Precision::F32, &Selection::Auto)?.variant;
    let mut calls = vec![(false, Variant::BLOCKED)];
    if f32_variant != Variant::BLOCKED {
        calls.push((false, f32_variant));
    }
    let mut skipped = vec![];
    for v in [Variant::PIPELINED_F16, Variant::COOP] {
        match tilekit::kernels::matmul::plan(gpu, v, shape, None) {
            Ok(_) => calls.push((true, v)),
            Err(e) => {
                // The lesson's point is the matrix units: without them it is not run here,
                // whatever f32 and f16 kernels did run.
                if v == Variant::COOP {
                    r.not_run = Some(format!("no matrix units for WGSL here ({e})"));
                }
                skipped.push(format!("f16 {:<14} skipped: {e}", v.name()))
            }
        }
    }
    // Each checked on its own poisoned C, then all timed side by side, in rounds
    // (Gpu::measure_side_by_side), each round's runs back to back.
    for &(half, v) in &calls {
        let sel = Selection::Variant(v);
        r.verified &= if half {
            gpu.fill(&dc16, tilekit::POISON).await?;
            gpu.matmul_on_device(&da16, &db16, &dc16, shape, &sel)
                .await?;
            let c: Vec<f32> = gpu.read(&dc16).await?.iter().map(|x| x.to_f32()).collect();
            verify_sampled(
                &ah,
                &bh,
                &c,
                (n, n, n),
                64,
                tilekit::kernels::matmul::f16_bound,
            )
            .is_ok()
        } else {
            gpu.fill(&dc, tilekit::POISON).await?;
            gpu.matmul_on_device(&da, &db, &dc, shape, &sel).await?;
            let c = gpu.read(&dc).await?;
            verify_sampled(&a, &b, &c, (n, n, n), 64, f32_bound).is_ok()
        };
    }
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::BackToBack,
            calls.len(),
            async |i| {
                let (half, v) = calls[i];
                let sel = Selection::Variant(v);
                if half {
                    gpu.matmul_on_device(&da16, &db16, &dc16, shape, &sel).await
                } else {
                    gpu.matmul_on_device(&da, &db, &dc, shape, &sel).await
                }
            },
            |r| r.timing.seconds,
        )
        .await?;
    let fastest_f32 = calls
        .iter()
        .zip(&measured)
        .filter(|((half, _), _)| !half)
        .map(|(_, m)| m)
        .min_by(|x, y| x.median.total_cmp(&y.median));
    let mut best = None;
    let mut coop_rate = None;
    for (&(half, v), m) in calls.iter().zip(&measured) {
        let run = &m.run;
        let vs = match (half, fastest_f32) {
            (false, _) => String::new(),
            (true, None) => " | no f32 to compare".to_string(),
            (true, Some(f)) => format!(" | {}", m.against(f).than("the faster f32")),
        };
        r.line(format!(
            "{} {:<14} {:<22} {:>10} {:>14}{vs}",
            if half { "f16" } else { "f32" },
            v.name(),
            run.tile,
            crate::units::time(run.timing.seconds),
            crate::units::flops(run.flop_per_second())
        ));
        speed.bars.push((v.name().into(), run.gflops(), None));
        if v == Variant::COOP {
            coop_rate = Some(run.flop_per_second());
        }
        if half {
            best = Some((v, vs.trim_start_matches(" | ").to_string()));
        }
    }
    for line in skipped {
        r.line(line);
    }
    // The matrix units alone: each subgroup multiplies its grid of fragments from registers,
    // nothing loaded (`ceiling/matrix` of `tilekit bench`). What the kernel lacks of it is what
    // feeding them costs (BENCHMARKS.md, "What holds the f16 kernel").
    if let Some(coop) = coop_rate {
        let (groups, iterations) = (528, size.pick(512, 4096));
        let sink = gpu
            .alloc::<f32>(
                "matrix sink",
                tilekit::ceiling::matrix_sink_len(gpu, groups)?,
            )
            .await?;
        let m = gpu
            .measure(
                tilekit::Repeat::Each,
                async || tilekit::ceiling::matrix(gpu, &sink, groups, iterations).await,
                |t| t.seconds,
            )
            .await?;
        r.verified &= tilekit::ceiling::matrix_verified(gpu, &sink, groups, iterations).await?;
        let units = tilekit::ceiling::matrix_flops(gpu, groups, iterations)? as f64 / m.median;
        r.line(format!(
            "the matrix units alone (fragments in registers, nothing loaded): {} | coop reaches {:.0}% of it; the rest goes to feeding them (fragment loads from workgroup memory, a barrier per slice, staging, global loads)",
            crate::units::flops(units),
            100.0 * coop / units
        ));
    }
    r.line(format!(
        "error bound: f32 accumulation 1e-5·√K·Σ|a·b| plus C rounded to f16, 2⁻¹¹·Σ|a·b|; f32 data computed in f16 (--compute f16) adds 2⁻⁹·Σ|a·b| for the rounding of A and B (at K = {n}: {:.1e} of Σ|a·b| in all)",
        f32_bound(n, 1.0) + 2f64.powi(-11) + 2f64.powi(-9)
    ));
    r.line(format!("{n}³{}", size_note(gpu, size)));
    r.key = match best {
        Some((v, vs)) => format!("f16 ({}): {vs}", v.name()),
        None => "no f16 on this adapter".into(),
    };
    r.charts = vec![speed];
    Ok(r)
}
