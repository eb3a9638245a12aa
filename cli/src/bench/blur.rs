//! The blur's bench cases: both variants, r = 2, on a 4096² image (256² with `--quick`).

use crate::bench::{rand_f32, Bench, Bound};
use tilekit::kernels::blur::{reference, verify, Variant};
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    if !b.wants("blur-r2/") {
        return Ok(());
    }
    let gpu = b.gpu;
    let side = b.pick(256, 4096);
    let img = rand_f32(side * side, 6);
    let exact = reference(&img, side, side, 2);
    let (dimg, dblur) = (
        gpu.upload("image", &img).wait()?,
        gpu.alloc::<f32>("blurred", side * side).wait()?,
    );
    for v in Variant::ALL {
        let (bytes, ops) = (8 * (side * side) as u64, 25 * (side * side) as u64);
        b.measure(
            &format!("blur-r2/{}", v.name()),
            format!("{side}²"),
            bytes,
            ops,
            Bound::Memory,
            |check| {
                let run = gpu
                    .blur_on_device(&dimg, &dblur, (side, side), 2, v)
                    .wait()?;
                let ok = !check || verify(&gpu.read(&dblur).wait()?, &exact, 2).is_ok();
                Ok((run.run.timing.seconds, ok, run.run.tile))
            },
        )?;
    }
    Ok(())
}
