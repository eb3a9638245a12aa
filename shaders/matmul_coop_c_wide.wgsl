// The cooperative matmul's stores into its output (joined after matmul_coop.wgsl and its loads):
// rows of `ld` elements, a multiple of 4, stored a vec4 at a time (128 bits for f32, 64 for f16):
// C itself where N is a multiple of 4 and K has one slice, else the split's own partial product
// (m×ld f32, ld = N rounded up to 4), which `sum_splits` adds into C. A vec4 that starts inside
// the output's N is stored whole: in a partial product its columns past N fall in the row's
// padding, which the sum never reads.
@group(0) @binding(2) var<storage, read_write> cc4: array<Out4>;

// The subgroup's fragment, in its scratch (row-major 16×16 f32), into the output at rows r0..,
// columns c0.. (both multiples of 4): 64 vec4s, consecutive invocations on consecutive vec4s (4 to
// a row of the fragment). Each invocation reads all of its vec4s before it stores any (see
// `store_frag`). Against eight scalar stores per invocation, these two per fragment ran the
// short-K shapes 11–18% faster on the H100, as fast as leaving the stores out (BENCHMARKS.md,
// "The cooperative kernel's epilogue": f16 2944×128×9280 69.9 → 61.6 µs, 640×128×14080 29.4 → 26.0, 4096³
// 541 → 535).
fn store_share(scratch: u32, out: u32, r0: u32, c0: u32, lane: u32) {
    var v: array<vec4<f32>, VEC_VALUES_MAX>;
    for (var j = 0u; j < (64u + SG - 1u) / SG; j++) {
        let q = scratch + 4u * min(lane + j * SG, 63u);
        v[j] = vec4<f32>(c_s[q], c_s[q + 1u], c_s[q + 2u], c_s[q + 3u]);
    }
    for (var j = 0u; j < (64u + SG - 1u) / SG; j++) {
        let q = lane + j * SG;
        let r = r0 + q / 4u;
        let c = c0 + 4u * (q % 4u);
        if (q < 64u && r < cp.m && c < cp.n_out) {
            cc4[(out + r * cp.ld + c) / 4u] = Out4(v[j]);
        }
    }
}

// Four values of a row of C at (row, col), col a multiple of 4, inside M and N (`stream_fixup`).
fn store_c4(row: u32, col: u32, v: vec4<f32>) {
    if (row < cp.m && col < cp.n_out) {
        cc4[(row * cp.ld + col) / 4u] = Out4(v);
    }
}
