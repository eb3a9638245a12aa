//! Lesson 08: wide loads, scalar against vec4, for a copy and a sum.

use crate::lesson::{size_note, Chart, Lesson, Report, Size};
use crate::units::bandwidth;
use tilekit::kernels::wide::Width;
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 8,
    name: "wide loads",
    run: |gpu, size| Box::pin(wide_loads(gpu, size)),
};

/// 08: wide loads.
pub async fn wide_loads(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "08 wide loads (float4)",
        "One 128-bit load moves four words with one instruction: fewer instructions per byte.",
        gpu,
    );
    r.quote("shaders/wide.wgsl", tilekit::shaders::WIDE);
    let n = size.pick(1 << 20, 64 << 20);
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let total = x.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let mut chart = Chart {
        title: format!("{n} words"),
        unit: "GB/s".into(),
        bars: vec![],
        against: "predicted",
    };
    let (dx, dcopy) = (
        gpu.upload("x", &x).await?,
        gpu.alloc::<u32>("copy", n).await?,
    );
    // Each copy checked on its own poisoned output, then both widths timed side by side, in
    // rounds (a CPU adapter drifts between one kernel's runs and the other's), the copies and
    // the sums apart.
    for w in Width::ALL {
        gpu.fill(&dcopy, tilekit::POISON).await?;
        gpu.copy_on_device(&dx, &dcopy, w).await?;
        r.verified &= gpu.read(&dcopy).await? == x;
    }
    let copies = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Width::ALL.len(),
            async |i| gpu.copy_on_device(&dx, &dcopy, Width::ALL[i]).await,
            |r| r.timing.seconds,
        )
        .await?;
    let sums = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Width::ALL.len(),
            async |i| gpu.sum_on_device(&dx, Width::ALL[i]).await,
            |r| r.1.timing.seconds,
        )
        .await?;
    for ((w, copy), sum) in Width::ALL.iter().zip(&copies).zip(&sums) {
        let (s, srun) = &sum.run;
        r.verified &= *s == total;
        chart
            .bars
            .push((format!("copy {}", w.name()), copy.run.gbps(), None));
        chart
            .bars
            .push((format!("sum {}", w.name()), srun.gbps(), None));
        r.line(format!(
            "{:<6} copy {:>12} | sum {:>12}",
            w.name(),
            bandwidth(copy.run.bytes_per_second()),
            bandwidth(srun.bytes_per_second())
        ));
    }
    // llvmpipe and SwiftShader run several invocations in the lanes of one SIMD instruction, so
    // a scalar load is already wide there.
    r.line(format!("{n} words{}", size_note(gpu, size)));
    r.charts.push(chart);
    r.key = format!("vec4 copy {}", copies[1].against(&copies[0]).than("scalar"));
    Ok(r)
}
