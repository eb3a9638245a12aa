// The pipelined matmul's global loads of B where N is not a multiple of 4 (joined after
// matmul_pipelined.wgsl, with one of the two files for A): each vec4 of a row of B gathered from
// four scalar loads, zero outside the matrix, as matmul_pipelined_a_ragged.wgsl does for A (which
// says when the host reads in place and what it measured).

@group(0) @binding(1) var<storage, read> b1: array<Elem>;

// The i-th vec4 of B's slice at k0: 4 consecutive columns of one row, each up to N. (Columns
// past N would only reach columns of the output that are never stored into C; the mask keeps
// the last row's loads inside B.)
fn load_b(me: u32, i: u32, col0: u32, k0: u32, k_end: u32) -> Elem4 {
    let e = me + i * threads();
    let kk = k0 + e / (BN / 4u);
    let c = col0 + 4u * (e % (BN / 4u));
    var v = Elem4();
    if (e < BK * BN / 4u && kk < k_end) {
        for (var j = 0u; j < 4u; j++) {
            if (c + j < p.n) {
                v[j] = b1[kk * p.n + c + j];
            }
        }
    }
    return v;
}
