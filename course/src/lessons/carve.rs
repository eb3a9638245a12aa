//! Lesson 10: several arrays carved from one workgroup allocation.

use crate::lesson::{Lesson, Report, Size};
use tilekit::{Gpu, Result};

/// The lesson.
pub const LESSON: Lesson = Lesson {
    number: 10,
    name: "carved arrays",
    run: |gpu, size| Box::pin(carved_arrays(gpu, size)),
};

/// 10: carved workgroup arrays.
pub async fn carved_arrays(gpu: &Gpu, _size: Size) -> Result<Report> {
    let mut r = Report::new(
        "10 carved workgroup arrays (Harris)",
        "One override-sized workgroup allocation split into an i32, an f32 (bitcast) and a byte part, as integerData/floatData/charData carved from one extern array.",
    );
    r.quote("shaders/carve.wgsl", tilekit::shaders::CARVE);
    let n = 64usize;
    let ints: Vec<i32> = (0..n as i32).map(|i| i * -3).collect();
    let floats: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let chars: Vec<u8> = (0..4 * n).map(|i| (i * 7) as u8).collect();
    let (out, run) = gpu.carved_reverse(&ints, &floats, &chars).await?;
    r.verified = out.ints.iter().eq(ints.iter().rev())
        && out.floats.iter().eq(floats.iter().rev())
        && out.chars.iter().eq(chars.iter().rev());
    r.line(format!(
        "{} — ints[0] {} floats[0] {} chars[0] {}",
        run.tile, out.ints[0], out.floats[0], out.chars[0]
    ));
    r.key = "three parts, one allocation".into();
    // The one workgroup array holds N i32 words, N f32 words and 4N bytes packed 4 per word.
    r.charts.push(crate::lesson::Chart {
        title: format!("words of the one workgroup allocation, N = {n}"),
        unit: "words".into(),
        bars: vec![
            ("i32 part".into(), n as f64, None),
            ("f32 part (bitcast)".into(), n as f64, None),
            ("u8 part, 4 per word".into(), n as f64, None),
        ],
        against: "predicted",
    });
    Ok(r)
}
