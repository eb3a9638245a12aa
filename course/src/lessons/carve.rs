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
    // Three identical bars said nothing; the trace shows what the lesson claims: the parts do
    // not overlap (every word of the pool written once, no race) and all are read back.
    let setup = crate::trace::Setup {
        entry: "carved_reverse".into(),
        overrides: vec![("N".into(), n as f64)],
        workgroups: [1, 1, 1],
        bindings: [
            ints.iter().map(|x| *x as u32).collect::<Vec<u32>>(),
            floats.iter().map(|x| x.to_bits()).collect(),
            chars
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            vec![0; n],
            vec![0; n],
            vec![0; n],
        ]
        .into_iter()
        .enumerate()
        .map(|(b, words)| crate::trace::Binding {
            group: 0,
            binding: b as u32,
            words,
        })
        .collect(),
    };
    match crate::trace::trace(tilekit::shaders::CARVE, "shaders/carve.wgsl", &setup) {
        Ok(t) => {
            let pool = t.traffic_of("pool").cloned().unwrap_or_default();
            r.verified &=
                t.clean() && pool.stores == 3 * n as u64 && pool.distinct_read == 3 * n as u64;
            r.line(format!(
                "traced at N = {n}: the one pool of 3N = {} words is stored {} times (each word once: the three parts do not overlap) and every word is read back after the barrier, {}",
                3 * n,
                pool.stores,
                if t.clean() { "with no race" } else { "but the trace found a mistake" }
            ));
        }
        Err(e) => {
            r.verified = false;
            r.line(format!("the trace failed: {e}"));
        }
    }
    Ok(r)
}
