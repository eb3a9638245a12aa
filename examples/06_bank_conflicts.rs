//! Lesson 06: bank conflicts (The CUDA Handbook, §8.1). A transpose reads a TILE×TILE tile by rows
//! and writes it by columns; reading a column of a 32-word-wide tile hits one memory bank 32 times.
//! Padding each row to TILE + 1 words spreads a column over 32 banks. Three kernels: naive (no
//! tile, strided writes), tiled, and tiled with the padded row.
//!
//! `cargo run --release --example 06_bank_conflicts`

use tilekit::kernels::transpose::Variant;

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let (m, n) = if quick || gpu.is_cpu() {
        (1000, 700)
    } else {
        (8192, 8192)
    };
    println!(
        "{} ({}), transpose of {m}×{n} f32\n",
        gpu.summary.name, gpu.summary.backend
    );

    let x = tilekit::random::uniform_f32(m * n, 6);
    let (dx, dy) = (
        gpu.upload("x", &x).wait()?,
        gpu.alloc::<f32>("xᵀ", m * n).wait()?,
    );
    // Each variant once on a poisoned output: element (i, j) of x is element (j, i) of xᵀ, bit
    // for bit.
    let mut verified = Vec::new();
    for v in Variant::ALL {
        gpu.fill(&dy, tilekit::POISON).wait()?;
        gpu.transpose_on_device(&dx, &dy, (m, n), v, None).wait()?;
        let y = gpu.read(&dy).wait()?;
        verified
            .push((0..m).all(|i| (0..n).all(|j| y[j * m + i].to_bits() == x[i * n + j].to_bits())));
    }
    // Then all three timed side by side, in rounds: each runs once per round, so that all meet
    // the adapter at the same moments.
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Variant::ALL.len(),
            |i| gpu.transpose_on_device(&dx, &dy, (m, n), Variant::ALL[i], None),
            |r| r.timing.seconds,
        )
        .wait()?;
    for ((v, t), ok) in Variant::ALL.iter().zip(&measured).zip(&verified) {
        println!(
            "{:<7} {:<18} {:>9.3} ms {:>9.1} GB/s  {}",
            v.name(),
            t.run.tile,
            t.median * 1e3,
            t.run.bytes as f64 / t.median / 1e9,
            if *ok { "verified" } else { "WRONG" }
        );
    }
    let all_ok = verified.iter().all(|&ok| ok);
    println!(
        "\nthe padded tile is {} (the lesson predicts faster on a GPU; a CPU adapter has no banks)",
        measured[2].against(&measured[1]).than("the unpadded one")
    );
    std::process::exit(if all_ok { 0 } else { 1 });
}
