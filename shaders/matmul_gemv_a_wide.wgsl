// The small-M matmul's global loads where every row of A and of B is a multiple of 4 elements
// (joined after matmul_gemv.wgsl): each vec4 is one 128-bit load (64 for f16).

@group(0) @binding(0) var<storage, read> ga4: array<Elem4>;
@group(0) @binding(1) var<storage, read> gb4: array<Elem4>;

// Where row `r` of A starts, in vec4s.
fn a_start(r: u32) -> u32 {
    return r * (gp.k / 4u);
}

// Columns k..k+3 of the row of A that starts at `row`.
fn load_a(row: u32, k: u32) -> vec4<f32> {
    return vec4<f32>(ga4[row + k / 4u]);
}

// Row k of B at the 4 columns of `cq`.
fn load_b(k: u32, cq: u32) -> vec4<f32> {
    return vec4<f32>(gb4[k * (gp.n / 4u) + cq]);
}
