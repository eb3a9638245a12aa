//! Queued calls: a chain of layers, x ← x·Wᵢ, as a model's forward pass runs them. A CUDA
//! launch returns before the GPU is done, and so does `Gpu::matmul_queue`: the host records the
//! next layer while the GPU runs this one, and only the read at the end waits. Waiting after
//! every layer instead (`synchronize`) adds a round trip per layer: the submission reaches the
//! GPU, the product runs, the host learns it is done, and only then is the next one recorded.
//!
//! Prints the GPU's own time for one layer, then each way's wall time per layer (medians of five
//! warm rounds), and checks every layer's output against the f64 product of its own input.
//!
//! `cargo run --release --example queued_layers`

use tilekit::kernels::matmul::{reference, verify, Selection, Shape};
use tilekit::random::uniform_f32;

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    let (rows, width, layers) = if quick || gpu.is_cpu() {
        (16, 256, 8)
    } else {
        (16, 1024, 16)
    };
    println!(
        "{} ({}): {layers} layers of {rows}×{width} · {width}×{width}\n",
        gpu.summary.name, gpu.summary.backend
    );
    let shape = Shape::new(rows, width, width)?;
    // Weights scaled by 1/√width keep x of the same size from layer to layer.
    let weights: Vec<Vec<f32>> = (0..layers)
        .map(|i| {
            let w = uniform_f32(width * width, 10 + i as u64);
            w.iter().map(|v| v / (width as f32).sqrt()).collect()
        })
        .collect();
    let w = weights
        .iter()
        .map(|w| gpu.upload("W", w).wait())
        .collect::<tilekit::Result<Vec<_>>>()?;
    // x₀ and each layer's output in a buffer of its own, to check them all at the end.
    let mut x = vec![gpu.upload("x0", &uniform_f32(rows * width, 1)).wait()?];
    for _ in 0..layers {
        x.push(gpu.alloc::<f32>("x", rows * width).wait()?);
    }
    let layer = |i: usize| gpu.matmul_queue(&x[i], &w[i], &x[i + 1], shape, &Selection::Auto);
    let waited = || -> tilekit::Result<()> {
        for i in 0..layers {
            layer(i).wait()?;
            gpu.synchronize().wait()?;
        }
        Ok(())
    };
    let queued = || -> tilekit::Result<()> {
        for i in 0..layers {
            layer(i).wait()?;
        }
        gpu.read(&x[layers]).wait().map(drop)
    };
    // Per layer, µs: the median of five rounds after one that compiles and plans.
    let per_layer = |forward: &dyn Fn() -> tilekit::Result<()>| -> tilekit::Result<f64> {
        forward()?;
        let mut t = Vec::new();
        for _ in 0..5 {
            let start = web_time::Instant::now();
            forward()?;
            t.push(start.elapsed().as_secs_f64() * 1e6 / layers as f64);
        }
        t.sort_by(f64::total_cmp);
        Ok(t[2])
    };

    // The first call compiles the kernel: the median of five after it.
    let mut runs = Vec::new();
    for _ in 0..6 {
        runs.push(
            gpu.matmul_on_device(&x[0], &w[0], &x[1], shape, &Selection::Auto)
                .wait()?,
        );
    }
    runs.sort_by(|a, b| a.timing.seconds.total_cmp(&b.timing.seconds));
    let one = &runs[3];
    println!(
        "one layer on the GPU:     {:>8.1} µs ({}, {} {})",
        one.timing.seconds * 1e6,
        one.timing.clock,
        one.variant,
        one.tile
    );
    if gpu.is_cpu() {
        // Measured on lavapipe: 443 µs by timestamps against 311 for a whole untimed call.
        println!(
            "  (a CPU adapter runs the kernels on this machine's cores, and a timed call costs\n   \
             it more than an untimed one: this can read longer than the whole calls below)"
        );
    }
    let wait = per_layer(&waited)?;
    println!("waited after each layer:  {wait:>8.1} µs per layer");
    let queue = per_layer(&queued)?;
    println!("queued, one read at end:  {queue:>8.1} µs per layer");
    println!(
        "\nThe lesson predicts the waited chain pays a round trip per layer on top of the GPU's\n\
         time, and the queued one the longer of the host's recording and the GPU's product."
    );

    let mut ok = true;
    let mut input = gpu.read(&x[0]).wait()?;
    for (i, wi) in weights.iter().enumerate() {
        let out = gpu.read(&x[i + 1]).wait()?;
        let (exact, mag) = reference(&input, wi, rows, width, width);
        if let Err(e) = verify(&out, &exact, &mag, width) {
            println!("layer {i}: {e}");
            ok = false;
        }
        input = out;
    }
    println!("every layer {}", if ok { "verified" } else { "WRONG" });
    std::process::exit(if ok { 0 } else { 1 });
}
