//! Lesson 06: bank conflicts in a transposed tile, and the padding that removes them.

use crate::lesson::{rand_f32, size_note, Chart, Lesson, Report, Size};
use crate::units::{bandwidth, time};
use tilekit::kernels::transpose::Variant;
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 6,
    name: "bank conflicts",
    run: |gpu, size| Box::pin(bank_conflicts(gpu, size)),
};

/// 06: bank conflicts in a transposed tile.
pub async fn bank_conflicts(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "06 bank conflicts (transpose, CUDA Handbook 8.1)",
        "Reading a 32×32 tile down a column hits one bank 32 times; padding each row to 33 words puts the column in 32 different banks.",
        gpu,
    );
    r.quote("shaders/transpose.wgsl", tilekit::shaders::TRANSPOSE);
    let (m, n) = size.pick((300, 200), (8192, 8192));
    let x = rand_f32(m * n, 6);
    let mut chart = Chart {
        title: format!("transpose of {m}×{n} f32"),
        unit: "GB/s".into(),
        bars: vec![],
        against: "predicted",
    };
    let (dx, dout) = (
        gpu.upload("x", &x).await?,
        gpu.alloc::<f32>("transposed", m * n).await?,
    );
    // Each variant checked on its own poisoned output, then all three timed side by side, in
    // rounds: padding's difference is small, and a CPU adapter drifts between one kernel's runs
    // and the next's by more.
    for v in Variant::ALL {
        gpu.fill(&dout, tilekit::POISON).await?;
        gpu.transpose_on_device(&dx, &dout, (m, n), v, None).await?;
        let out = gpu.read(&dout).await?;
        r.verified &=
            (0..m).all(|i| (0..n).all(|j| out[j * m + i].to_bits() == x[i * n + j].to_bits()));
    }
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Variant::ALL.len(),
            async |i| {
                gpu.transpose_on_device(&dx, &dout, (m, n), Variant::ALL[i], None)
                    .await
            },
            |r| r.timing.seconds,
        )
        .await?;
    for (v, t) in Variant::ALL.iter().zip(&measured) {
        let run = &t.run;
        chart.bars.push((v.name().into(), run.gbps(), None));
        r.line(format!(
            "{:<7} {:<16} {:>10} {:>12}",
            v.name(),
            run.tile,
            time(run.timing.seconds),
            bandwidth(run.bytes_per_second())
        ));
    }
    r.charts.push(chart);
    r.key = format!(
        "padding: {}",
        measured[2].against(&measured[1]).than("the unpadded tile")
    );
    r.line(format!("{m}×{n}{}", size_note(gpu, size)));
    if let Some((plain, padded)) = traced_conflicts(&mut r) {
        // On a CPU adapter the times cannot be compared; the counts can.
        if gpu.is_cpu() {
            r.key = format!("padding: {plain}-way → {padded}-way bank conflicts (traced)");
        }
    }
    Ok(r)
}

/// The conflicts themselves, counted by the tracer at a ragged 33×70: the passes the column read
/// of each request of 32 invocations takes, predicted 32 for the plain tile (all 32 words in one
/// bank) and 1 for the padded one.
fn traced_conflicts(r: &mut Report) -> Option<(u32, u32)> {
    let padded = crate::exercise::traced::transpose(33, 70).setup;
    let mut plain = padded.clone();
    plain.entry = "tiled".into();
    let path = "shaders/transpose.wgsl";
    let worst = |setup: &crate::trace::Setup| {
        crate::trace::trace(tilekit::shaders::TRANSPOSE, path, setup)
            .map(|t| t.banks.iter().map(|b| b.worst).max().unwrap_or(0))
    };
    match (worst(&plain), worst(&padded)) {
        (Ok(a), Ok(b)) => {
            r.verified &= a == 32 && b == 1;
            r.line(format!(
                "traced at 33×70: the plain tile's column read takes {a} passes per request of 32 invocations (predicted 32), the padded tile's {b} (predicted 1); counts, unlike times, are the same on every GPU"
            ));
            Some((a, b))
        }
        (Err(e), _) | (_, Err(e)) => {
            r.verified = false;
            r.line(format!("the trace failed: {e}"));
            None
        }
    }
}
