//! Lesson 04: reversing an array through workgroup memory (Mark Harris, "Using Shared Memory in
//! CUDA C/C++"): `staticReverse` with a fixed 64-element `__shared__` array, `dynamicReverse`
//! sized at launch (in WGSL an `override` constant), and a block reverse for any n. Each
//! invocation stores one element, a barrier waits for all of them, and each reads its mirror.
//!
//! `cargo run --release --example 04_reverse`

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    println!("{} ({})\n", gpu.summary.name, gpu.summary.backend);

    // staticReverse: exactly 64 elements, `var<workgroup> s: array<u32, 64>`.
    let d: Vec<u32> = (0..64).collect();
    let (r, _) = gpu
        .reverse(&d, tilekit::kernels::reverse::Variant::Static)
        .wait()?;
    assert_eq!(r, d.iter().rev().copied().collect::<Vec<_>>());
    println!(
        "static  64 elements: {:?}..{:?} (expected 63..0)",
        r[0], r[63]
    );

    // dynamicReverse: the array's length is an override constant set when the pipeline is
    // built, checked against the adapter's limits first (wgpu does not check override sizes).
    let n = 1000.min(gpu.limits().max_compute_invocations_per_workgroup as usize);
    let d: Vec<i32> = (0..n as i32).map(|i| i * 3 - 7).collect();
    let (r, _) = gpu
        .reverse(&d, tilekit::kernels::reverse::Variant::Dynamic)
        .wait()?;
    assert_eq!(r, d.iter().rev().copied().collect::<Vec<_>>());
    println!("dynamic {n} elements: one workgroup of {n} invocations, reversed");

    // Any n: each workgroup reverses one block and writes it to the mirrored block.
    let n = if quick || gpu.is_cpu() {
        1 << 20
    } else {
        1 << 26
    };
    let x: Vec<u32> = (0..n as u32).collect();
    let (dx, dy) = (
        gpu.upload("x", &x).wait()?,
        gpu.alloc::<u32>("reversed", n).wait()?,
    );
    let m = gpu
        .measure(
            tilekit::Repeat::Each,
            || gpu.reverse_on_device(&dx, &dy),
            |r| r.timing.seconds,
        )
        .wait()?;
    let y = gpu.read(&dy).wait()?;
    let ok = y.iter().enumerate().all(|(i, &v)| v as usize == n - 1 - i);
    println!(
        "block   {n} elements ({}): {:.3} ms, {:.1} GB/s ({}), verified: {}",
        m.run.tile,
        m.median * 1e3,
        m.run.bytes as f64 / m.median / 1e9,
        m.run.timing.clock,
        if ok { "yes" } else { "NO" }
    );
    std::process::exit(if ok { 0 } else { 1 });
}
