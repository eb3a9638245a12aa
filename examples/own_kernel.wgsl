// A kernel of your own (examples/own_kernel.rs): y = a·x + y over n elements, n and a from a
// uniform block. arrayLength(&y) is n as well: Gpu::dispatch binds each buffer to its data.

struct Params {
    n: u32,
    a: f32,
}

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>) {
    // The grid overhangs n by less than a workgroup: those invocations do nothing.
    if (id.x < p.n) {
        y[id.x] = p.a * x[id.x] + y[id.x];
    }
}

override WG: u32 = 64u;
