// tests/dispatch.rs: what arrayLength sees of each buffer Gpu::dispatch binds (the length
// uploaded, not tilekit's padding to 16 bytes).
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> n: array<u32>;

@compute @workgroup_size(1)
fn main() {
    n[0] = arrayLength(&x);
    n[1] = arrayLength(&n);
}
