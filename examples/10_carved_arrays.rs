//! Lesson 10: several arrays carved out of one workgroup allocation (Mark Harris, "Using Shared
//! Memory in CUDA C/C++": `extern __shared__` split into an int, a float and a char array by
//! offsets). WGSL has no pointer casts: one override-sized `array<u32, 3 * N>` holds the int
//! part as it is, the float part through `bitcast<f32>`, and the bytes packed four to a word.
//! Each part is reversed through it and checked bit for bit.
//!
//! `cargo run --release --example 10_carved_arrays`

fn main() -> tilekit::Result<()> {
    let gpu = tilekit::Gpu::new().wait()?;
    let n = 64usize;
    println!(
        "{} ({}), N = {n} records\n",
        gpu.summary.name, gpu.summary.backend
    );

    let ints: Vec<i32> = (0..n as i32).map(|i| i * -3 + 1).collect();
    let floats = tilekit::random::uniform_f32(n, 10);
    let chars: Vec<u8> = (0..4 * n).map(|i| (i * 37) as u8).collect();
    let (out, run) = gpu.carved_reverse(&ints, &floats, &chars).wait()?;

    let ints_ok = out.ints.iter().eq(ints.iter().rev());
    let floats_ok = out
        .floats
        .iter()
        .map(|f| f.to_bits())
        .eq(floats.iter().rev().map(|f| f.to_bits()));
    let chars_ok = out.chars.iter().eq(chars.iter().rev());
    println!(
        "{}: one workgroup allocation of {} bytes",
        run.tile,
        3 * n * 4
    );
    println!(
        "  i32 part       reversed: {}",
        if ints_ok { "yes" } else { "NO" }
    );
    println!(
        "  f32 part (bits) reversed: {}",
        if floats_ok { "yes" } else { "NO" }
    );
    println!(
        "  u8 part, 4/word reversed: {}",
        if chars_ok { "yes" } else { "NO" }
    );
    std::process::exit(if ints_ok && floats_ok && chars_ok {
        0
    } else {
        1
    });
}
