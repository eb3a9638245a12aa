// The small-M matmul's global loads of A where K is a multiple of 4 (joined after
// matmul_gemv.wgsl, with one of the two files for B): each vec4 is one 128-bit load (64 for f16).

@group(0) @binding(0) var<storage, read> ga4: array<Elem4>;

// K is a multiple of 4 here: no group of rows reaches past B's last (matmul_gemv_b_wide.wgsl).
const K_RAGGED: bool = false;

// Where row `r` of A starts, in vec4s.
fn a_start(r: u32) -> u32 {
    return r * (gp.k / 4u);
}

// Columns k..k+3 of the row of A that starts at `row` (all inside K: K is a multiple of 4).
fn load_a(row: u32, k: u32) -> vec4<f32> {
    return vec4<f32>(ga4[row + k / 4u]);
}
