//! The wide-loads bench cases: sum and copy of 2²⁷ words (2²⁰ with `--quick`), scalar and vec4.

use crate::bench::{rand_f32, Bench, Bound};
use tilekit::kernels::wide::Width;
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    if !b.wants("sum-u32/") && !b.wants("copy/") {
        return Ok(());
    }
    let gpu = b.gpu;
    let n = b
        .pick(1usize << 20, 1 << 27)
        .min((gpu.limits().max_binding_bytes() / 4) as usize);
    let u: Vec<u32> = rand_f32(n, 3).iter().map(|v| v.to_bits()).collect();
    let usum = u.iter().fold(0u32, |a, b| a.wrapping_add(*b));
    let du = gpu.upload("sum input", &u).wait()?;
    for w in Width::ALL {
        b.measure(
            &format!("sum-u32/{}", w.name()),
            format!("{n}"),
            4 * n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let (s, run) = gpu.sum_on_device(&du, w).wait()?;
                Ok((run.timing.seconds, s == usum, run.tile))
            },
        )?;
    }
    let dcopy = gpu.alloc::<u32>("copy", n).wait()?;
    for w in Width::ALL {
        b.measure(
            &format!("copy/{}", w.name()),
            format!("{n}"),
            8 * n as u64,
            n as u64,
            Bound::Memory,
            |check| {
                let run = gpu.copy_on_device(&du, &dcopy, w).wait()?;
                let ok = !check || gpu.read(&dcopy).wait()? == u;
                Ok((run.timing.seconds, ok, run.tile))
            },
        )?;
    }
    Ok(())
}
