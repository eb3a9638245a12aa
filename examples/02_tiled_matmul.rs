//! Lesson 02: naive against tiled matrix multiply (PMPP 3rd ed., §4.2–4.6, figs 4.3 and 4.16).
//! The naive kernel reads a row of A and a column of B from global memory for every element of
//! C: one multiply-add per two loads (a compute-to-global-memory-access ratio of 1). Staging
//! TILE×TILE tiles in workgroup memory lets each loaded value serve TILE multiply-adds, so the
//! ratio should be TILE. Both kernels run here, are checked against an f64 reference, and timed.
//!
//! `cargo run --release --example 02_tiled_matmul` (add `-- --quick` for small sizes, as on a
//! CPU adapter such as lavapipe)

use tilekit::kernels::matmul::{reference, verify, Selection, Shape, Variant};

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let n = if quick || gpu.is_cpu() { 128 } else { 2048 };
    println!(
        "{} ({}), {n}×{n}×{n} f32\n",
        gpu.summary.name, gpu.summary.backend
    );

    // 1. The operands on the device, C allocated for the result.
    let a = tilekit::random::uniform_f32(n * n, 1);
    let b = tilekit::random::uniform_f32(n * n, 2);
    let (da, db) = (gpu.upload("A", &a).wait()?, gpu.upload("B", &b).wait()?);
    let dc = gpu.alloc::<f32>("C", n * n).wait()?;
    let shape = Shape::new(n, n, n)?;

    // 2. The two kernels of the lesson: naive (fig 4.3), tiled at TILE = 16 (fig 4.16).
    let naive = Selection::Variant(Variant::NAIVE);
    let tiled = Selection::Forced {
        variant: Variant::TILED,
        tile: tilekit::plan::Tile::square(16),
    };
    let kernels = [("naive", naive, 1.0), ("tiled", tiled, 16.0)];

    // 3. Each kernel once on a poisoned C, every element checked against the f64 reference.
    for (_, selection, _) in &kernels {
        gpu.fill(&dc, tilekit::POISON).wait()?;
        gpu.matmul_on_device(&da, &db, &dc, shape, selection)
            .wait()?;
        let c = gpu.read(&dc).wait()?;
        if n <= 512 {
            let (exact, magnitude) = reference(&a, &b, n, n, n);
            verify(&c, &exact, &magnitude, n)?;
        }
    }

    // 4. Timed warm and side by side: one run of each builds its pipeline, then rounds in which
    //    each runs once (so both meet the adapter at the same moments); the median of each.
    let times = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            kernels.len(),
            |i: usize| gpu.matmul_on_device(&da, &db, &dc, shape, &kernels[i].1),
            |r: &tilekit::kernels::matmul::MatmulRun| r.timing.seconds,
        )
        .wait()?;
    for ((name, _, predicted_ratio), m) in kernels.iter().zip(&times) {
        let run = &m.run;
        println!(
            "{name:<6} {:<8} loads {:>12}  ratio {:>5.1} FLOP/load (lesson: {predicted_ratio:>4.1})  {:>9.3} ms  {:>8.1} GFLOP/s",
            run.tile,
            run.global_loads,
            run.ratio,
            m.median * 1e3,
            run.flops as f64 / m.median / 1e9
        );
    }
    println!(
        "\ntiling is {} ({}; on a CPU adapter workgroup memory is ordinary RAM, so the speed-up belongs to GPUs, the load count still holds)",
        times[1].against(&times[0]).than("naive"),
        times[0].run.timing.clock
    );
    println!(
        "verified: yes{}",
        if n > 512 {
            " (sizes over 512 skip the f64 check here)"
        } else {
            ""
        }
    );
    Ok(())
}
