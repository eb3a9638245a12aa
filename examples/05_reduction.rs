//! Lesson 05: the reduction progression ("CUDA basics 5.3: reducing global memory access"):
//! the tree in global memory (reduceGmem), in workgroup memory (reduceSmem), four loads added
//! per invocation first (reduceUnroll4Smem), the array sized at launch, a grid-stride loop over
//! the workgroups that are resident, subgroup operations for the last steps, and one launch in
//! which the last workgroup to finish combines the partials (no second pass). Each step's
//! effective bandwidth, (bytes read + bytes written) / time, sits next to a copy of the same data
//! (the ceiling of a kernel that reads everything once).
//!
//! `cargo run --release --example 05_reduction`

use tilekit::kernels::reduce::{Op, Variant};
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
        "{} ({}), sum of {n} f32\n",
        gpu.summary.name, gpu.summary.backend
    );

    let x = tilekit::random::uniform_f32(n, 5);
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    // The error bound of a pairwise tree (the reduction's doc comment): (⌈log₂ n⌉ + 2)·2⁻²⁴·Σ|x|.
    let bound = ((n as f64).log2().ceil() + 2.0)
        * 2f64.powi(-24)
        * x.iter().map(|v| v.abs() as f64).sum::<f64>();
    let input = gpu.upload("x", &x).wait()?;

    // The ceiling: a vec4 copy of the same bytes.
    let copy = gpu.alloc::<f32>("copy", n).wait()?;
    let c = gpu
        .measure(
            tilekit::Repeat::Each,
            || gpu.copy_on_device(&input, &copy, Width::Vec4),
            |r| r.timing.seconds,
        )
        .wait()?;
    let ceiling = c.run.bytes as f64 / c.median;
    println!("{:<12} {:>12.1} GB/s", "copy (vec4)", ceiling / 1e9);

    let mut all_ok = true;
    for v in Variant::ALL {
        if let Err(e) = gpu.require(v.needs(), v.name()) {
            println!("{:<12} skipped: {e}", v.name());
            continue;
        }
        let m = gpu
            .measure(
                tilekit::Repeat::Each,
                || gpu.reduce_with(&input, Op::Sum, v),
                |r| r.1.timing.seconds,
            )
            .wait()?;
        let (sum, run) = &m.run;
        let ok = ((*sum as f64) - exact).abs() <= bound;
        all_ok &= ok;
        let bw = run.bytes as f64 / m.median;
        println!(
            "{:<12} {:>12.1} GB/s  {:>3.0}% of the copy  {} launch(es), WG={}  {}",
            v.name(),
            bw / 1e9,
            100.0 * bw / ceiling,
            run.launches,
            run.workgroup,
            if ok { "verified" } else { "WRONG" }
        );
    }
    println!("\nf64 sum {exact:.6}, error bound {bound:.2e}");
    std::process::exit(if all_ok { 0 } else { 1 });
}
