// The pipelined matmul's global loads of A where its rows are multiples of 4 elements (joined
// after matmul_pipelined.wgsl, with one of the two files for B): each vec4 is one 128-bit load
// (64 for f16). A ragged K comes here copied into rows of `p.lda` = K rounded up to 4 (zeros
// past K). The row length is a uniform of its own, not K rounded here: rounding it in the
// address of every load made the f32 kernel 1.4–3.2% slower at aligned shapes (H100,
// BENCHMARKS.md, "The f32 kernel is held by its reads of workgroup memory": 4096³ 2980 µs against 2931).

@group(0) @binding(0) var<storage, read> a4: array<Elem4>;

// The i-th vec4 of A's slice at k0 that invocation `me` loads: 4 consecutive k of one row.
// Kept in the element type until it is stored (half the registers for f16 while in flight).
fn load_a(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> Elem4 {
    let e = me + i * threads();
    let r = e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    if (e < BM * BK / 4u && row0 + r < p.m && kk < k_end) {
        return a4[((row0 + r) * p.lda + kk) / 4u];
    }
    return Elem4();
}
