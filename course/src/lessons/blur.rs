//! Lesson 09: the blur and its compute-to-global-memory-access ratio (PMPP fig 4.1).

use crate::lesson::{rand_f32, size_note, Chart, Lesson, Report, Size};
use crate::units::{bandwidth, time};
use tilekit::kernels::blur::{reference, verify, Variant};
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 9,
    name: "blur",
    run: |gpu, size| Box::pin(blur_ratio(gpu, size)),
};

/// 09: blur and its compute-to-global-memory-access ratio.
pub async fn blur_ratio(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "09 blur and the compute-to-global-memory-access ratio (PMPP fig 4.1)",
        "The naive blur does one add per global load (ratio 1.0): bandwidth-bound. Staging the tile and its halo in workgroup memory lets each loaded pixel serve every window that covers it: a T×T tile loads (T+2r)² pixels for T²·(2r+1)² adds, a ratio of (2r+1)²·T²/(T+2r)², which rises toward (2r+1)² (25 for a 5×5 window) as the tile grows.",
        gpu,
    );
    r.quote("shaders/blur.wgsl", tilekit::shaders::BLUR);
    let (w, h) = size.pick((97, 61), (4096, 4096));
    let img = rand_f32(w * h, 9);
    let exact = reference(&img, w, h, 2);
    let (dimg, dout) = (
        gpu.upload("image", &img).await?,
        gpu.alloc::<f32>("blurred", w * h).await?,
    );
    let mut chart = Chart {
        title: "adds per global load (5×5 window)".into(),
        unit: "adds/load".into(),
        bars: vec![],
        against: "predicted",
    };
    for v in Variant::ALL {
        gpu.fill(&dout, tilekit::POISON).await?;
        let run = gpu
            .measure(
                tilekit::Repeat::Each,
                async || gpu.blur_on_device(&dimg, &dout, (w, h), 2, v).await,
                |r| r.run.timing.seconds,
            )
            .await?
            .run;
        let out = gpu.read(&dout).await?;
        r.verified &= verify(&out, &exact, 2).is_ok();
        let predicted = run.run.plan.as_ref().map(|p| match v {
            Variant::Naive => 1.0,
            Variant::Tiled => p.choice().reuse,
        });
        chart.bars.push((v.name().into(), run.ratio, predicted));
        r.line(format!(
            "{:<6} ratio {:>5.2} adds/load | {:>10} {:>12} ({})",
            v.name(),
            run.ratio,
            time(run.run.timing.seconds),
            bandwidth(run.run.bytes_per_second()),
            run.run.tile
        ));
        r.key = format!("tiled ratio {:.1}", run.ratio);
        if let (Variant::Tiled, Some(p)) = (v, predicted) {
            r.line(format!(
                "tiled: predicted (2r+1)²·T²/(T+2r)² = {p:.1} for {}; measured {:.1}: at the image's edges the windows are cut (fewer adds) and the tiles overhang it, so the small image stays below the formula",
                run.run.tile, run.ratio
            ));
        }
    }
    r.charts.push(chart);
    r.line(format!(
        "{w}×{h}, BLUR_SIZE 2 (5×5 window){}",
        size_note(gpu, size)
    ));
    Ok(r)
}
