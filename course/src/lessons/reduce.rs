//! Lesson 05: the reduction progression (reduceGmem → reduceSmem → unroll4 → dynamic →
//! grid-stride → subgroup → one pass) with the copy ceiling beside it, as the lesson's table
//! shows each step's bandwidth next to the previous one.

use crate::lesson::{rand_f32, size_note, Chart, Lesson, Report, Size};
use tilekit::kernels::reduce::{Op, Variant};
use tilekit::kernels::wide;
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 5,
    name: "reduction",
    run: |gpu, size| Box::pin(reduction(gpu, size)),
};

/// 05: the reduction progression with the copy ceiling beside it.
pub async fn reduction(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "05 reduction (reduceGmem → reduceSmem → unroll4 → dynamic → grid-stride → subgroup → one pass)",
        "A tree in global memory pays a global read and write per step; a workgroup-memory tree reads each input once; unrolling adds four loads per invocation before the tree, so fewer workgroups do more each; subgroup operations replace the last steps (WGSL has no warp lock-step, so the lesson's volatile trick is not allowed); the last workgroup to finish can combine the partials itself, one launch instead of two.",
        gpu,
    );
    r.quote("shaders/reduce.wgsl", tilekit::shaders::REDUCE);
    let n = size.pick(1 << 20, 64 << 20);
    let x = rand_f32(n, 5);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let bound = ((n as f64).log2().ceil() + 2.0)
        * 2f64.powi(-24)
        * x.iter().map(|v| v.abs() as f64).sum::<f64>();
    let input = gpu.upload("reduce input", &x).await?;
    let copy_dst = gpu.alloc::<f32>("copy", n).await?;
    let ceiling = gpu
        .measure(
            tilekit::Repeat::Each,
            async || {
                gpu.copy_on_device(&input, &copy_dst, wide::Width::Vec4)
                    .await
            },
            |r| r.timing.seconds,
        )
        .await?
        .run;
    // One unit for the lesson: the one that fits the copy ceiling.
    let rate = crate::units::Rate::fitting(ceiling.bytes_per_second());
    r.line(format!(
        "copy ceiling (vec4): {}",
        rate.show(ceiling.bytes_per_second())
    ));
    let mut chart = Chart {
        title: format!("sum of {n} f32: effective bandwidth"),
        unit: rate.label().into(),
        bars: vec![(
            "copy ceiling".into(),
            rate.of(ceiling.bytes_per_second()),
            None,
        )],
        against: "predicted",
    };
    let mut best = 0.0f64;
    for v in Variant::ALL {
        if let Err(e) = gpu.require(v.needs(), v.name()) {
            // The adapter lacks the feature: say so, and check that the library says so too.
            r.line(format!("{}: skipped: {e}", v.name()));
            r.verified &= gpu.reduce_with(&input, Op::Sum, v).await.is_err();
            continue;
        }
        let (s, run) = gpu
            .measure(
                tilekit::Repeat::Each,
                async || gpu.reduce_with(&input, Op::Sum, v).await,
                |r| r.1.timing.seconds,
            )
            .await?
            .run;
        let ok = ((s as f64) - exact).abs() <= bound;
        r.verified &= ok;
        best = best.max(run.gbps());
        chart
            .bars
            .push((v.name().into(), rate.of(run.bytes_per_second()), None));
        r.line(format!(
            "{:<12} {:>10} {:>12} ({:>3.0}% of copy) {} launch(es) WG={} {}",
            v.name(),
            crate::units::time(run.timing.seconds),
            rate.show(run.bytes_per_second()),
            100.0 * run.gbps() / ceiling.gbps(),
            run.launches,
            run.workgroup,
            if ok { "ok" } else { "WRONG" }
        ));
    }
    r.charts.push(chart);
    r.line(format!(
        "sum of {n} f32 (error bound {bound:.2e}){}",
        size_note(gpu, size)
    ));
    traced_loads(&mut r);
    r.key = format!("best {}", rate.show(best * 1e9));
    Ok(r)
}

/// The tree's loads, counted by the tracer at n = 1000 (four workgroups of 256): each input read
/// once, and per workgroup 2·(256 − 1) + 1 workgroup-memory reads (each step s reads 2s words,
/// s = 128 … 1, then invocation 0 reads the total).
fn traced_loads(r: &mut Report) {
    let case = crate::exercise::traced::reduce(1000);
    match crate::trace::trace(tilekit::shaders::REDUCE, "shaders/reduce.wgsl", &case.setup) {
        Ok(t) => {
            let input = t.traffic_of("input").map_or(0, |x| x.loads);
            let tree = t.traffic_of("static_data").map_or(0, |x| x.loads);
            r.verified &= input == 1000 && tree == 4 * 511 && t.clean();
            r.line(format!(
                "traced at n = 1000: {input} global loads (predicted n = 1000), {tree} workgroup-memory loads (predicted 4 workgroups × (2·255 + 1) = 2044)"
            ));
        }
        Err(e) => {
            r.verified = false;
            r.line(format!("the trace failed: {e}"));
        }
    }
}
