//! The histogram's bench cases: both variants on 2²⁸ uniform bytes (2²⁰ with `--quick`).

use crate::bench::{Bench, Bound};
use tilekit::kernels::histogram::{pack_bytes, Values, Variant};
use tilekit::Result;

pub(super) fn cases(b: &mut Bench<'_>) -> Result<()> {
    if !b.wants("histogram/") {
        return Ok(());
    }
    let gpu = b.gpu;
    let n = b.pick(1 << 20, 1 << 28);
    let mut rng = tilekit::random::Rng::new(5);
    let bytes: Vec<u8> = (0..n).map(|_| rng.next_u32() as u8).collect();
    let mut expected = [0u32; 256];
    bytes.iter().for_each(|&v| expected[v as usize] += 1);
    let words = gpu.upload("histogram input", &pack_bytes(&bytes)).wait()?;
    drop(bytes);
    for v in Variant::ALL {
        b.measure(
            &format!("histogram/{}", v.name()),
            format!("{n} bytes"),
            n as u64,
            n as u64,
            Bound::Memory,
            |_| {
                let (h, run) = gpu.histogram_on_device(&words, Values::U8(n), v).wait()?;
                Ok((run.timing.seconds, h == expected, run.tile))
            },
        )?;
    }
    Ok(())
}
