// The smallest pipeline for compile.rs's test of threads that build one pipeline together: each
// invocation writes three times its index. What it computes does not matter; only that every
// thread gets the one pipeline the cache kept first.
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) i: vec3<u32>) {
    out[i.x] = i.x * 3u;
}
