//! The reduction's bench cases: every variant summing 2²⁷ f32 (512 MiB; 2²⁰ with `--quick`),
//! then the library's default variant on 2²⁸ (1 GiB) where the adapter can bind it.

use crate::bench::{rand_f32, Bench, Bound};
use tilekit::kernels::reduce::{Op, Variant};
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    let gpu = b.gpu;
    let max = (gpu.limits().max_binding_bytes() / 4) as usize;
    let sizes = [
        ("reduce", b.pick(1usize << 20, 1 << 27).min(max)),
        ("reduce-1gib", b.pick(0, 1 << 28)),
    ];
    for (family, n) in sizes {
        if n == 0 || n > max || !b.wants(&format!("{family}/")) {
            continue;
        }
        let x = rand_f32(n, 3);
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let bound = ((n as f64).log2().ceil() + 2.0)
            * 2f64.powi(-24)
            * x.iter().map(|v| v.abs() as f64).sum::<f64>();
        let dx = gpu.upload("reduce input", &x).wait()?;
        drop(x);
        let variants: Vec<Variant> = if family == "reduce" {
            Variant::ALL.to_vec()
        } else {
            vec![tilekit::kernels::reduce::default_variant(gpu)]
        };
        for v in variants {
            if !b.available(&format!("{family}/{}", v.name()), v.needs()) {
                continue;
            }
            b.measure(
                &format!("{family}/{}", v.name()),
                format!("{n}"),
                4 * n as u64,
                n as u64,
                Bound::Memory,
                |_| {
                    let (s, run) = gpu.reduce_with(&dx, Op::Sum, v).wait()?;
                    Ok((
                        run.timing.seconds,
                        ((s as f64) - exact).abs() <= bound,
                        format!("WG={} launches={}", run.workgroup, run.launches),
                    ))
                },
            )?;
        }
    }
    if b.wants("reduce-call/") {
        // The wall time of one whole call as a program sees it (input already on the GPU): the
        // launches, the wait and the readback of the sum.
        let n = 1 << 20;
        let x = rand_f32(n, 7);
        let exact: f64 = x.iter().map(|&v| v as f64).sum();
        let bound = 24.0 * 2f64.powi(-24) * x.iter().map(|v| v.abs() as f64).sum::<f64>();
        let dx = gpu.upload("reduce input", &x).wait()?;
        let v = tilekit::kernels::reduce::default_variant(gpu);
        // The floor under any call that returns a value: one 4-byte copy into a staging buffer,
        // one submission, one wait, one mapping. What the sum's call costs above it is the
        // launches and their setup.
        let one = gpu.upload("one float", &[1.5f32]).wait()?;
        b.measure(
            "reduce-call/floor",
            "4 B".into(),
            4,
            1,
            Bound::Memory,
            |_| {
                let start = std::time::Instant::now();
                let back = gpu.read(&one).wait()?;
                let wall = start.elapsed().as_secs_f64();
                Ok((wall, back == [1.5], "wall time, a 4-byte readback".into()))
            },
        )?;
        b.measure(
            "reduce-call/1M",
            format!("{n}"),
            4 * n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let start = std::time::Instant::now();
                let s = gpu.reduce(&dx, Op::Sum).wait()?;
                let wall = start.elapsed().as_secs_f64();
                Ok((
                    wall,
                    ((s as f64) - exact).abs() <= bound,
                    format!("wall time, {}", v.name()),
                ))
            },
        )?;
    }
    Ok(())
}
