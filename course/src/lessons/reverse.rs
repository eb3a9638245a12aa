//! Lesson 04: reverse through workgroup memory, static and dynamic, then a large n.

use crate::lesson::{Lesson, Report, Size};
use crate::units::{time, Rate};
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 4,
    name: "reverse",
    run: |gpu, size| Box::pin(reverse(gpu, size)),
};

/// 04: reverse, static and dynamic, then a large n.
pub async fn reverse(gpu: &Gpu, size: Size) -> Result<Report> {
    let mut r = Report::timed(
        "04 reverse through workgroup memory (Harris)",
        "staticReverse uses a fixed 64-element array; dynamicReverse sizes it at launch (here: an override constant); a barrier separates the writes from the reads.",
        gpu,
    );
    r.quote("shaders/reverse.wgsl", tilekit::shaders::REVERSE);
    let input: Vec<i32> = (0..64).collect();
    let (out, _) = gpu
        .reverse(&input, tilekit::kernels::reverse::Variant::Static)
        .await?;
    let ok = out == (0..64).rev().collect::<Vec<_>>();
    r.verified &= ok;
    r.line(format!(
        "static 0..63 → {}..{} (expected 63..0)",
        out[0], out[63]
    ));
    let (out, _) = gpu
        .reverse(&input, tilekit::kernels::reverse::Variant::Dynamic)
        .await?;
    r.verified &= out == (0..64).rev().collect::<Vec<_>>();
    r.line(format!("dynamic N=64 → {}..{}", out[0], out[63]));
    let n = size.pick(100_003, 64 << 20);
    let x: Vec<u32> = (0..n as u32).collect();
    let (dx, dout) = (
        gpu.upload("x", &x).await?,
        gpu.alloc::<u32>("reversed", n).await?,
    );
    let run = gpu
        .measure(
            tilekit::Repeat::Each,
            async || gpu.reverse_on_device(&dx, &dout).await,
            |r| r.timing.seconds,
        )
        .await?
        .run;
    let out = gpu.read(&dout).await?;
    r.verified &= out
        .iter()
        .enumerate()
        .all(|(i, &v)| v as usize == n - 1 - i);
    // The same bytes copied straight (vec4 loads): what moving them costs without the trip
    // through workgroup memory and the mirrored writes.
    let copy = gpu
        .measure(
            tilekit::Repeat::Each,
            async || {
                gpu.copy_on_device(&dx, &dout, tilekit::kernels::wide::Width::Vec4)
                    .await
            },
            |r| r.timing.seconds,
        )
        .await?
        .run;
    let rate = Rate::fitting(run.bytes_per_second().max(copy.bytes_per_second()));
    r.line(format!(
        "block reverse of {n}: {}, {} ({}); a vec4 copy of the same bytes: {}, {}",
        time(run.timing.seconds),
        rate.show(run.bytes_per_second()),
        run.tile,
        time(copy.timing.seconds),
        rate.show(copy.bytes_per_second())
    ));
    r.key = rate.show(run.bytes_per_second());
    r.charts.push(crate::lesson::Chart {
        title: format!("{n} words: reversed through workgroup memory, and copied"),
        unit: rate.label().into(),
        bars: vec![
            (
                "block reverse".into(),
                rate.of(run.bytes_per_second()),
                None,
            ),
            ("vec4 copy".into(), rate.of(copy.bytes_per_second()), None),
        ],
        against: "predicted",
    });
    Ok(r)
}
