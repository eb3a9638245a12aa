//! Lesson 09: the blur kernel and the compute-to-global-memory-access ratio (PMPP 3rd ed., §4.1,
//! fig 4.1). The naive blur adds each of the (2r+1)² pixels of its window straight from global
//! memory: one add per load, bound by bandwidth. Staging a tile and its halo in workgroup memory
//! lets each loaded pixel serve up to (2r+1)² adds; the planner predicts the ratio for its tile.
//!
//! `cargo run --release --example 09_blur`

use tilekit::kernels::blur::{reference, verify, Variant};

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let (w, h) = if quick || gpu.is_cpu() {
        (333, 211)
    } else {
        (4096, 4096)
    };
    let radius = 2; // a 5×5 window, the book's BLUR_SIZE
    println!(
        "{} ({}), {w}×{h} image, {}×{} window\n",
        gpu.summary.name,
        gpu.summary.backend,
        2 * radius + 1,
        2 * radius + 1
    );

    let image = tilekit::random::uniform_f32(w * h, 9);
    let exact = reference(&image, w, h, radius);
    let (input, output) = (
        gpu.upload("image", &image).wait()?,
        gpu.alloc::<f32>("blurred", w * h).wait()?,
    );
    // Each blur once on a poisoned output, checked against the f64 reference.
    for v in Variant::ALL {
        gpu.fill(&output, tilekit::POISON).wait()?;
        gpu.blur_on_device(&input, &output, (w, h), radius, v)
            .wait()?;
        verify(&gpu.read(&output).wait()?, &exact, radius)?;
    }
    // Then both timed side by side, in rounds: each runs once per round, so that both meet the
    // adapter at the same moments.
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Variant::ALL.len(),
            |i| gpu.blur_on_device(&input, &output, (w, h), radius, Variant::ALL[i]),
            |r| r.run.timing.seconds,
        )
        .wait()?;
    for (v, m) in Variant::ALL.iter().zip(&measured) {
        let predicted = match v {
            Variant::Naive => 1.0,
            Variant::Tiled => m.run.run.plan.as_ref().map_or(1.0, |p| p.choice().reuse),
        };
        println!(
            "{:<6} {:<16} ratio {:>5.2} adds/load (predicted {predicted:>5.2})  {:>9.3} ms  {:>8.1} GB/s  verified",
            v.name(),
            m.run.run.tile,
            m.run.ratio,
            m.median * 1e3,
            m.run.run.bytes as f64 / m.median / 1e9
        );
    }
    println!(
        "\nthe tiled blur is {}",
        measured[1].against(&measured[0]).than("the naive one")
    );
    Ok(())
}
