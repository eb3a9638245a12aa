// The pipelined matmul's global loads where every row of A and of B is a multiple of 4 elements
// (joined after matmul_pipelined.wgsl): each is one 128-bit load (64 for f16) of a vec4.

@group(0) @binding(0) var<storage, read> a4: array<Elem4>;
@group(0) @binding(1) var<storage, read> b4: array<Elem4>;

// The i-th vec4 of A's slice at k0 that invocation `me` loads: 4 consecutive k of one row.
// Kept in the element type until it is stored (half the registers for f16 while in flight).
fn load_a(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> Elem4 {
    let e = me + i * threads();
    let r = e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    if (e < BM * BK / 4u && row0 + r < p.m && kk < k_end) {
        return a4[((row0 + r) * p.k + kk) / 4u];
    }
    return Elem4();
}

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
