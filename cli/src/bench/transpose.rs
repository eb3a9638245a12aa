//! The transpose's bench cases: every variant on an 8192² f32 matrix (512² with `--quick`).

use crate::bench::{rand_f32, Bench, Bound};
use tilekit::kernels::transpose::Variant;
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    if !b.wants("transpose/") {
        return Ok(());
    }
    let gpu = b.gpu;
    let side = b.pick(512, 8192);
    let t = rand_f32(side * side, 4);
    let (dt, dtout) = (
        gpu.upload("transpose input", &t).wait()?,
        gpu.alloc::<f32>("transposed", side * side).wait()?,
    );
    for v in Variant::ALL {
        let bytes = 8 * (side * side) as u64;
        b.measure(
            &format!("transpose/{}", v.name()),
            format!("{side}²"),
            bytes,
            (side * side) as u64,
            Bound::Memory,
            |check| {
                let run = gpu
                    .transpose_on_device(&dt, &dtout, (side, side), v, None)
                    .wait()?;
                let ok = !check || {
                    let out = gpu.read(&dtout).wait()?;
                    (0..side).all(|i| (0..side).all(|j| out[j * side + i] == t[i * side + j]))
                };
                Ok((run.timing.seconds, ok, run.tile))
            },
        )?;
    }
    Ok(())
}
