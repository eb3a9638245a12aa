// tests/dispatch.rs's kernel of one's own: out[i] = scale · a[i] + z over an nx × ny × nz box,
// workgroups of 8 × 4 × 1. Every index is guarded, since the grid overhangs a ragged box.
struct Params { nx: u32, ny: u32, nz: u32, scale: f32 }
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(8, 4, 1)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= p.nx || g.y >= p.ny || g.z >= p.nz) { return; }
    let i = (g.z * p.ny + g.y) * p.nx + g.x;
    out[i] = p.scale * a[i] + f32(g.z);
}
