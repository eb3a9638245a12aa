//! Lesson 07: workgroup atomics against global atomics on skewed bytes.

use crate::lesson::{Chart, Lesson, Report, Size};
use crate::units::{bandwidth, time};
use tilekit::kernels::histogram::{pack_bytes, Values, Variant};
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 7,
    name: "workgroup atomics",
    run: |gpu, size| Box::pin(workgroup_atomics(gpu, size)),
};

/// 07: workgroup atomics against global atomics.
pub async fn workgroup_atomics(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "07 workgroup atomics (histogram)",
        "Counting in workgroup memory turns n contended global atomics into 256 per workgroup.",
        gpu,
    );
    r.quote("shaders/histogram.wgsl", tilekit::shaders::HISTOGRAM);
    let n = size.pick(1 << 20, 256 << 20);
    let mut rng = tilekit::random::Rng::new(7);
    // Skewed bytes: half of them fall in one bin, the worst case for atomics.
    let data: Vec<u8> = (0..n)
        .map(|_| {
            if rng.next_u32() & 1 == 1 {
                42
            } else {
                rng.next_u32() as u8
            }
        })
        .collect();
    let mut expected = [0u32; 256];
    data.iter().for_each(|&b| expected[b as usize] += 1);
    let mut chart = Chart {
        title: format!("histogram of {n} skewed bytes"),
        unit: "GB/s".into(),
        bars: vec![],
        against: "predicted",
    };
    let words = gpu.upload("bytes", &pack_bytes(&data)).await?;
    // Both variants timed side by side, in rounds: a comparison of two moments of a drifting
    // adapter is not one of two kernels.
    let t = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Variant::ALL.len(),
            async |i| {
                gpu.histogram_on_device(&words, Values::U8(n), Variant::ALL[i])
                    .await
            },
            |r| r.1.timing.seconds,
        )
        .await?;
    for (v, m) in Variant::ALL.iter().zip(&t) {
        let (h, run) = &m.run;
        r.verified &= *h == expected;
        chart.bars.push((v.name().into(), run.gbps(), None));
        r.line(format!(
            "{:<9} {:>10} {:>12}",
            v.name(),
            time(run.timing.seconds),
            bandwidth(run.bytes_per_second())
        ));
    }
    r.charts.push(chart);
    r.key = format!("workgroup atomics {}", t[0].against(&t[1]).than("global"));
    Ok(r)
}
