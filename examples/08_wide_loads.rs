//! Lesson 08: wide loads (The CUDA Handbook, §8.1). One 128-bit load (`float4` in CUDA,
//! `vec4<f32>` in WGSL) moves four words with one instruction: fewer instructions per byte. A copy
//! and a sum, each with scalar and vec4 loads, over the same words.
//!
//! `cargo run --release --example 08_wide_loads`

use tilekit::kernels::wide::Width;

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let n = if quick || gpu.is_cpu() {
        1 << 20
    } else {
        1 << 26
    };
    println!(
        "{} ({}), {n} words\n",
        gpu.summary.name, gpu.summary.backend
    );

    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let expected_sum = x.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let (dx, dy) = (
        gpu.upload("x", &x).wait()?,
        gpu.alloc::<u32>("copy", n).wait()?,
    );
    // Each copy once on a poisoned output, checked word for word.
    let mut copied = Vec::new();
    for w in Width::ALL {
        gpu.fill(&dy, tilekit::POISON).wait()?;
        gpu.copy_on_device(&dx, &dy, w).wait()?;
        copied.push(gpu.read(&dy).wait()? == x);
    }
    // Then both widths timed side by side, in rounds (each runs once per round, so that both
    // meet the adapter at the same moments): the copies, then the sums.
    let copies = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Width::ALL.len(),
            |i| gpu.copy_on_device(&dx, &dy, Width::ALL[i]),
            |r| r.timing.seconds,
        )
        .wait()?;
    let sums = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Width::ALL.len(),
            |i| gpu.sum_on_device(&dx, Width::ALL[i]),
            |r| r.1.timing.seconds,
        )
        .wait()?;
    for (((w, copy), sum), &ok_copy) in Width::ALL.iter().zip(&copies).zip(&sums).zip(&copied) {
        let ok_sum = sum.run.0 == expected_sum;
        println!(
            "{:<6} copy {:>9.1} GB/s ({})   sum {:>9.1} GB/s ({})",
            w.name(),
            copy.run.bytes as f64 / copy.median / 1e9,
            if ok_copy { "verified" } else { "WRONG" },
            sum.run.1.bytes as f64 / sum.median / 1e9,
            if ok_sum { "verified" } else { "WRONG" },
        );
        if !(ok_copy && ok_sum) {
            std::process::exit(1);
        }
    }
    println!(
        "\nthe vec4 copy is {}",
        copies[1].against(&copies[0]).than("the scalar one")
    );
    Ok(())
}
