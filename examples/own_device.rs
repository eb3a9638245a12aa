//! tilekit inside your own wgpu program: open the adapter and device yourself, hand them to
//! `Gpu::from_wgpu`, and run a kernel of your own next to tilekit's on one device, sharing a
//! buffer. Only the library is needed (`default-features = false` works).
//!
//! `cargo run --release --example own_device`

use std::sync::Arc;

/// Your own kernel, in its own file as any WGSL should be.
const SCALE: &str = include_str!("own_device.wgsl");

fn main() -> tilekit::Result<()> {
    // 1. Your own adapter and device, opened as your application already does. tilekit plans
    //    from the limits the device was opened with: ask for the adapter's own to get the
    //    largest tiles. Optional features (TIMESTAMP_QUERY, SUBGROUP, SHADER_F16) are used when
    //    the device has them.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .map_err(|e| tilekit::Error::RequestDevice(e.to_string()))?;
    let wanted = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SUBGROUP;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("my app"),
        required_features: adapter.features() & wanted,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .map_err(|e| tilekit::Error::RequestDevice(e.to_string()))?;
    device.on_uncaptured_error(Arc::new(|e| eprintln!("my app's wgpu error: {e}")));

    // 2. tilekit on that device.
    let gpu = tilekit::Gpu::from_wgpu(&adapter, device, queue, Default::default())?;
    println!("tilekit on {} ({})", gpu.summary.name, gpu.summary.backend);

    // 3. A buffer tilekit uploads, changed in place by a kernel of yours...
    let n = 1_000_003usize;
    let host: Vec<f32> = (0..n).map(|i| ((i % 1000) as f32) * 1e-3).collect();
    let x = gpu.upload("x", &host).wait()?;
    let device = gpu.wgpu().0;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("scale"),
        source: wgpu::ShaderSource::Wgsl(SCALE.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("scale"),
        layout: None,
        module: &module,
        entry_point: Some("scale"),
        compilation_options: Default::default(),
        cache: None,
    });
    // tilekit pads buffers to 16 bytes: bind exactly the n floats.
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("scale"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: x.raw(),
                offset: 0,
                size: wgpu::BufferSize::new(4 * n as u64),
            }),
        }],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(n.div_ceil(256) as u32, 1, 1);
    }
    gpu.wgpu().1.submit([enc.finish()]);

    // 4. ...then reduced by tilekit, on the same device, without a round trip through the host.
    //    (tilekit's submissions follow yours on the same queue.)
    let variant = tilekit::kernels::reduce::default_variant(&gpu);
    let (sum, run) = gpu
        .reduce_with(&x, tilekit::kernels::reduce::Op::Sum, variant)
        .wait()?;
    let exact: f64 = host.iter().map(|&v| 2.0 * v as f64 + 1.0).sum();
    println!(
        "your kernel, then tilekit's {} reduction: {sum} (f64 reference {exact:.1}), {:.3} ms",
        variant.name(),
        run.timing.seconds * 1e3
    );
    let rel = ((sum as f64) - exact).abs() / exact;
    assert!(rel < 1e-5, "relative error {rel}");
    println!("verified: yes (relative error {rel:.1e})");
    Ok(())
}
