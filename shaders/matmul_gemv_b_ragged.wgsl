// The small-M matmul's global loads of B where N is not a multiple of 4 (joined after
// matmul_gemv.wgsl, with one of the two files for A): a row of B then starts anywhere, so each
// vec4 is gathered from four scalar loads, zero outside the matrix (PMPP fig 4.20, element by
// element; why in place rather than copied: matmul_gemv_a_ragged.wgsl).

@group(0) @binding(1) var<storage, read> gb1: array<Elem>;

// Row k of B at the 4 columns of `cq`, zero past K and past N.
fn load_b(k: u32, cq: u32) -> vec4<f32> {
    var v = vec4<f32>();
    if (k < gp.k) {
        for (var j = 0u; j < 4u; j++) {
            if (4u * cq + j < gp.n) {
                v[j] = f32(gb1[k * gp.n + 4u * cq + j]);
            }
        }
    }
    return v;
}
