//! The queued calls a `Gpu` holds before it submits them (`src/queue.rs`).

/// Queued calls recorded and not yet submitted (`Gpu::enqueue`), all in one compute pass, since a
/// pass of its own costs each small call a large part of its time (BENCHMARKS.md, "Queued
/// products"). wgpu orders the
/// dispatches of a pass as it orders passes (a barrier between a buffer's write and its next
/// use).
pub(crate) struct Held {
    /// The open pass; it borrows `encoder` (`forget_lifetime`), so it is ended first.
    pub(crate) pass: wgpu::ComputePass<'static>,
    encoder: wgpu::CommandEncoder,
    /// How many calls the pass holds.
    pub(crate) calls: usize,
}

impl Held {
    /// An open pass on a new encoder, holding no call yet.
    pub(crate) fn new(device: &wgpu::Device) -> Held {
        let mut encoder = device.create_command_encoder(&Default::default());
        let pass = encoder
            .begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("tilekit queued"),
                timestamp_writes: None,
            })
            .forget_lifetime();
        Held {
            pass,
            encoder,
            calls: 0,
        }
    }

    /// The calls' command buffer, their pass ended.
    pub(crate) fn finish(self) -> wgpu::CommandBuffer {
        let Held { pass, encoder, .. } = self;
        drop(pass);
        encoder.finish()
    }
}
