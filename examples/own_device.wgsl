// Your own kernel (examples/own_device.rs): scale and shift every element in place.
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(256)
fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&x)) {
        x[id.x] = 2.0 * x[id.x] + 1.0;
    }
}
