//! The reverse's bench case: the block reverse of 2²⁶ words (2²⁰ with `--quick`).

use crate::bench::{Bench, Bound};
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    if !b.wants("reverse/") {
        return Ok(());
    }
    let gpu = b.gpu;
    let n = b.pick(1 << 20, 1 << 26);
    let r: Vec<u32> = (0..n as u32).collect();
    let (dr, drout) = (
        gpu.upload("reverse input", &r).wait()?,
        gpu.alloc::<u32>("reversed", n).wait()?,
    );
    b.measure(
        "reverse/block",
        format!("{n}"),
        8 * n as u64,
        n as u64,
        Bound::Memory,
        |check| {
            let run = gpu.reverse_on_device(&dr, &drout).wait()?;
            let ok = !check
                || gpu
                    .read(&drout)
                    .wait()?
                    .iter()
                    .enumerate()
                    .all(|(i, &v)| v as usize == n - 1 - i);
            Ok((run.timing.seconds, ok, run.tile))
        },
    )
}
