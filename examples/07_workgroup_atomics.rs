//! Lesson 07: atomics in workgroup memory (The CUDA Handbook, §8.1). A 256-bin histogram where
//! every invocation adds to the global bins contends on the same 256 words; counting in a
//! workgroup's own `array<atomic<u32>, 256>` first turns n contended global atomics into 256 per
//! workgroup. Skewed data (half the bytes in one bin) is the worst case for the global kernel.
//!
//! `cargo run --release --example 07_workgroup_atomics`

use tilekit::kernels::histogram::{pack_bytes, Values, Variant};

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let n = if quick || gpu.is_cpu() {
        1 << 20
    } else {
        1 << 28
    };
    println!(
        "{} ({}), histogram of {n} skewed bytes\n",
        gpu.summary.name, gpu.summary.backend
    );

    let mut rng = tilekit::random::Rng::new(7);
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
    // Four bytes to a word: the kernels read 32-bit words and take the bytes apart.
    let words = gpu.upload("bytes", &pack_bytes(&data)).wait()?;
    // Both variants timed side by side, in rounds: each runs once per round, so that both meet
    // the adapter at the same moments.
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::Each,
            Variant::ALL.len(),
            |i| gpu.histogram_on_device(&words, Values::U8(n), Variant::ALL[i]),
            |r| r.1.timing.seconds,
        )
        .wait()?;
    for (v, m) in Variant::ALL.iter().zip(&measured) {
        let ok = m.run.0 == expected;
        println!(
            "{:<9} {:>9.3} ms {:>9.1} GB/s  {}",
            v.name(),
            m.median * 1e3,
            m.run.1.bytes as f64 / m.median / 1e9,
            if ok { "verified" } else { "WRONG" }
        );
        if !ok {
            std::process::exit(1);
        }
    }
    println!(
        "\nworkgroup atomics are {}",
        measured[0].against(&measured[1]).than("global atomics")
    );
    Ok(())
}
