//! Lesson 08: wide loads, scalar against vec4, for a copy and a sum.

use super::Width;
use crate::family::lesson::{size_note, Chart, Lesson, Report, Size};
use crate::family::units::bandwidth;
use crate::{Gpu, Result};

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
    r.quote(
        "shaders/wide.wgsl",
        include_str!("../../../shaders/wide.wgsl"),
    );
    let n = size.pick(1 << 20, 64 << 20);
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let sum = x.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let mut g = vec![];
    let mut chart = Chart {
        title: format!("{n} words"),
        unit: "GB/s".into(),
        bars: vec![],
    };
    let (dx, dcopy) = (
        gpu.upload_async("x", &x).await?,
        gpu.alloc_async::<u32>("copy", n).await?,
    );
    for w in Width::ALL {
        gpu.poison_async(&dcopy).await?;
        let m = gpu
            .measure_async(
                async || gpu.copy_on_device_async(&dx, &dcopy, w).await,
                |r| r.timing.seconds,
            )
            .await?;
        let run = m.run.clone();
        let copy = gpu.read_async(&dcopy).await?;
        let (s, srun) = gpu
            .measure_async(
                async || gpu.sum_on_device_async(&dx, w).await,
                |r| r.1.timing.seconds,
            )
            .await?
            .run;
        r.verified &= copy == x && s == sum;
        g.push(m);
        chart
            .bars
            .push((format!("copy {}", w.name()), run.gbps(), None));
        chart
            .bars
            .push((format!("sum {}", w.name()), srun.gbps(), None));
        r.line(format!(
            "{:<6} copy {:>12} | sum {:>12}",
            w.name(),
            bandwidth(run.bytes_per_second()),
            bandwidth(srun.bytes_per_second())
        ));
    }
    // llvmpipe and SwiftShader run several invocations in the lanes of one SIMD instruction, so
    // a scalar load is already wide there (lavapipe on 2 cores: the vec4 copy read from 1.9x
    // slower to 1.7x faster than the scalar one, tour to tour).
    r.line(format!(
        "{n} words{}",
        size_note(
            gpu,
            size,
            "several invocations run in each SIMD instruction, so scalar loads are already wide; \
             the instructions per byte that vec4 saves are a GPU's"
        )
    ));
    r.charts.push(chart);
    r.key = format!("vec4 copy {}", g[1].against(&g[0]).than("scalar"));
    Ok(r)
}
