//! Lesson 11: tensor cores. Lesson 02's tiling one level up: blocks staged in workgroup memory
//! feed the matrix units (cooperative matrices, `coop_mat16x16<f16>` in WGSL, where the adapter
//! has `EXPERIMENTAL_COOPERATIVE_MATRIX`) with f16 inputs and f32 accumulation; without them,
//! f16 storage with f32 arithmetic on the scalar units. f16 keeps 11 significant bits, so each
//! element's error is bounded by the f32 bound plus 2⁻¹¹ of Σ|a·b| for rounding C.
//!
//! `cargo run --release --example 11_tensor_cores`

use half::f16;
use tilekit::kernels::matmul::{f32_bound, reference, Selection, Shape, Variant};

fn main() -> tilekit::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let gpu = tilekit::Gpu::new().wait()?;
    if let Err(e) = gpu.require(wgpu::Features::SHADER_F16, "f16 matmul") {
        println!("{}: {e}; nothing to run", gpu.summary.name);
        return Ok(());
    }
    let n = if quick || gpu.is_cpu() { 256 } else { 4096 };
    println!("{} ({}), {n}³\n", gpu.summary.name, gpu.summary.backend);
    let shape = Shape::new(n, n, n)?;

    // Operands f16 can hold exactly, so the reference sees what the kernel sees.
    let half = |v: Vec<f32>| -> Vec<f16> { v.into_iter().map(f16::from_f32).collect() };
    let a16 = half(tilekit::random::uniform_f32(n * n, 11));
    let b16 = half(tilekit::random::uniform_f32(n * n, 12));
    let a: Vec<f32> = a16.iter().map(|x| x.to_f32()).collect();
    let b: Vec<f32> = b16.iter().map(|x| x.to_f32()).collect();

    // f32 on the scalar units (the kernel a call gets), f16 on the scalar units, then on the
    // matrix units where the adapter has them.
    let (da, db, dc) = (
        gpu.upload("A", &a).wait()?,
        gpu.upload("B", &b).wait()?,
        gpu.alloc::<f32>("C", n * n).wait()?,
    );
    let (ha, hb, hc) = (
        gpu.upload("A", &a16).wait()?,
        gpu.upload("B", &b16).wait()?,
        gpu.alloc::<f16>("C", n * n).wait()?,
    );
    let mut f16_variants = Vec::new();
    for v in [Variant::PIPELINED_F16, Variant::COOP] {
        match tilekit::kernels::matmul::plan(&gpu, v, shape, None) {
            Ok(_) => f16_variants.push(v),
            Err(e) => println!("f16 {:<14} not on this adapter: {e}", v.name()),
        }
    }

    // Each f16 kernel once on a poisoned C: every element against f64, where the sizes allow
    // it here.
    let (exact, magnitude) = if n <= 256 {
        reference(&a, &b, n, n, n)
    } else {
        (vec![], vec![])
    };
    for &v in &f16_variants {
        gpu.fill(&hc, tilekit::POISON).wait()?;
        gpu.matmul_on_device(&ha, &hb, &hc, shape, &Selection::Variant(v))
            .wait()?;
        let c = gpu.read(&hc).wait()?;
        for (i, e) in exact.iter().enumerate() {
            let bound = f32_bound(n, magnitude[i]) + e.abs() * 2f64.powi(-11) + 2f64.powi(-24);
            if (c[i].to_f32() as f64 - e).abs() > bound {
                println!("{v} element {i}: {} against {e}", c[i]);
                std::process::exit(1);
            }
        }
    }

    // All of them timed side by side, in rounds (each runs once per round, so that all meet the
    // GPU at the same moments), each run copies of the call back to back: C is the same however
    // often it runs. Call 0 is the f32 one.
    let f16_selections: Vec<Selection> = f16_variants
        .iter()
        .map(|v| Selection::Variant(*v))
        .collect();
    let measured = gpu
        .measure_side_by_side(
            tilekit::Repeat::BackToBack,
            1 + f16_variants.len(),
            |i| match i {
                0 => gpu.matmul_on_device(&da, &db, &dc, shape, &Selection::Auto),
                _ => gpu.matmul_on_device(&ha, &hb, &hc, shape, &f16_selections[i - 1]),
            },
            |r| r.timing.seconds,
        )
        .wait()?;
    let f32_run = &measured[0];
    println!(
        "f32 {:<14} {:>9.3} ms {:>8.1} TFLOP/s",
        f32_run.run.variant.name(),
        f32_run.median * 1e3,
        shape.flops() as f64 / f32_run.median / 1e12
    );
    for (&v, m) in f16_variants.iter().zip(&measured[1..]) {
        println!(
            "f16 {:<14} {:>9.3} ms {:>8.1} TFLOP/s  {}  {}",
            v.name(),
            m.median * 1e3,
            shape.flops() as f64 / m.median / 1e12,
            m.against(f32_run).than("f32"),
            if exact.is_empty() {
                "(f64 check at ≤ 256³)"
            } else {
                "verified"
            }
        );
        if v == Variant::COOP {
            // The matrix units alone: each subgroup multiplies its grid of fragments from
            // registers, nothing loaded. What the kernel lacks of it is what feeding them costs.
            let (groups, iterations) = (528, if quick { 512 } else { 4096 });
            let sink = gpu
                .alloc::<f32>("sink", tilekit::ceiling::matrix_sink_len(&gpu, groups)?)
                .wait()?;
            let units = gpu
                .measure(
                    tilekit::Repeat::Each,
                    || tilekit::ceiling::matrix(&gpu, &sink, groups, iterations),
                    |t| t.seconds,
                )
                .wait()?;
            assert!(tilekit::ceiling::matrix_verified(&gpu, &sink, groups, iterations).wait()?);
            let rate =
                tilekit::ceiling::matrix_flops(&gpu, groups, iterations)? as f64 / units.median;
            println!(
                "matrix units alone {:>19.1} TFLOP/s  (coop reaches {:.1}% of it)",
                rate / 1e12,
                100.0 * shape.flops() as f64 / m.median / rate
            );
        }
    }
    Ok(())
}
