//! A kernel of your own in one call, as wgpu's `hello_compute` does in a page of setup:
//! `Gpu::dispatch` builds the pipeline (cached by name), binds your buffers, launches the grid,
//! waits and times it. Here SAXPY, y = a·x + y, checked against the CPU in f64.
//!
//! `cargo run --release --example own_kernel [-- --quick]`

use tilekit::{Gpu, Shader};

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = Gpu::new().wait()?;
    println!("{} ({})", gpu.summary.name, gpu.summary.backend);

    // 1. Your shader, with its workgroup size an override constant.
    let shader = Shader::owned("saxpy", include_str!("own_kernel.wgsl"));
    let wg = 256u32.min(gpu.limits().max_compute_invocations_per_workgroup);

    // 2. Your data: a ragged n, so the last workgroup is partly idle.
    let n = if quick { 100_003usize } else { 10_000_019 };
    let a = 1.5f32;
    let x = tilekit::random::uniform_f32(n, 1);
    let y = tilekit::random::uniform_f32(n, 2);
    let dx = gpu.upload("x", &x).wait()?;
    let dy = gpu.upload("y", &y).wait()?;
    let params = gpu.params(&[n as u32, a.to_bits()])?;

    // 3. One launch: ⌈n / WG⌉ workgroups of WG invocations.
    let workgroups = (n as u32).div_ceil(wg);
    let constants = [("WG".to_string(), wg as f64)];
    let binds = [(0, dx.bind()), (1, dy.bind()), (2, params.bind())];
    gpu.dispatch(&shader, "saxpy", &constants, &binds, [workgroups, 1, 1])
        .wait()?;

    // 4. Back to the host, against the CPU in f64.
    let got = gpu.read(&dy).wait()?;
    let worst = got
        .iter()
        .zip(x.iter().zip(&y))
        .map(|(&g, (&x, &y))| {
            let want = a as f64 * x as f64 + y as f64;
            (g as f64 - want).abs() / want.abs().max(1.0)
        })
        .fold(0.0, f64::max);
    assert!(worst < 1e-6, "largest relative error {worst:e}");
    println!("verified: yes (largest relative error {worst:.1e})");

    // 5. Its speed: the same call timed as tilekit times its own (a warm-up, then the median of
    //    several runs; y keeps growing, which the time does not mind).
    let m = gpu
        .measure(
            tilekit::Repeat::Each,
            async || {
                gpu.dispatch(&shader, "saxpy", &constants, &binds, [workgroups, 1, 1])
                    .await
            },
            |t| t.seconds,
        )
        .wait()?;
    println!(
        "saxpy of {n} floats in {workgroups} workgroups of {wg}: {:.3} ms, median of {} runs ({:.1} GB/s at 12 bytes an element)",
        m.median * 1e3,
        m.times.len(),
        12.0 * n as f64 / m.median / 1e9
    );
    Ok(())
}
