// The pipelined matmul's global loads of B where its rows are multiples of 4 elements (joined
// after matmul_pipelined.wgsl, with one of the two files for A): each vec4 is one 128-bit load
// (64 for f16). A ragged N comes here copied into rows of `p.n` = N rounded up to 4 (zeros past
// N); B keeps its K rows, and no load reaches past k_end.

@group(0) @binding(1) var<storage, read> b4: array<Elem4>;

// The i-th vec4 of B's slice at k0: 4 consecutive columns of one row.
fn load_b(me: u32, i: u32, col0: u32, k0: u32, k_end: u32) -> Elem4 {
    let e = me + i * threads();
    let kk = e / (BN / 4u);
    let cq = e % (BN / 4u);
    if (e < BK * BN / 4u && k0 + kk < k_end && col0 + 4u * cq < p.n) {
        return b4[((k0 + kk) * p.n + col0) / 4u + cq];
    }
    return Elem4();
}
