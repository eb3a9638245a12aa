// The small-M matmul's global loads of B where N is a multiple of 4 (joined after
// matmul_gemv.wgsl, with one of the two files for A): each vec4 is one 128-bit load (64 for f16).

@group(0) @binding(1) var<storage, read> gb4: array<Elem4>;

// Row k of B at the 4 columns of `cq`, in a whole slice (every row inside K).
fn load_b(k: u32, cq: u32) -> vec4<f32> {
    return vec4<f32>(gb4[k * (gp.n / 4u) + cq]);
}

// The same at K's end, zero past K (a ragged K reaches up to 3 rows beyond B's last).
fn load_b_edge(k: u32, cq: u32) -> vec4<f32> {
    if (k < gp.k) {
        return load_b(k, cq);
    }
    return vec4<f32>();
}
