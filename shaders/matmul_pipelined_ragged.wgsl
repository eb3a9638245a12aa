// The pipelined matmul's global loads where K or N is not a multiple of 4 (joined after
// matmul_pipelined.wgsl): a row of A or of B then starts anywhere, so a vec4 of it cannot be
// read as one; each of its four elements is a scalar load of its own, zero outside the matrix
// (PMPP fig 4.20, element by element). The rest of the kernel is unchanged: the vec4 is staged
// and multiplied as the wide loads' is. The host takes these loads only on skinny products
// (pipelined.rs, `loads_in_place`): elsewhere copying A and B into rows of 4 first costs less
// than the four instructions per vec4 cost every slice (H100: 5–19% slower in place at
// 777×1234×2345, 2049×1000×1031 and 4095³, 28–45% faster at 17×4099×4097, 33×4097×11007 and
// 8191×4095×61; BENCHMARKS.md, 2026-11-25). Masks written with `select` and unconditional
// clamped loads, or one branch for a whole vec4 inside, ran within 4% of these.

@group(0) @binding(0) var<storage, read> a1: array<Elem>;
@group(0) @binding(1) var<storage, read> b1: array<Elem>;

// The i-th vec4 of A's slice at k0 that invocation `me` loads: 4 consecutive k of one row, each
// up to k_end.
fn load_a(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> Elem4 {
    let e = me + i * threads();
    let r = row0 + e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    var v = Elem4();
    if (e < BM * BK / 4u && r < p.m) {
        for (var j = 0u; j < 4u; j++) {
            if (kk + j < k_end) {
                v[j] = a1[r * p.k + kk + j];
            }
        }
    }
    return v;
}

// The i-th vec4 of B's slice at k0: 4 consecutive columns of one row, each up to N. (Columns
// past N would only reach columns of the output that are never copied into C; the mask keeps
// the last row's loads inside B.) Past K, a row of A read into the next would multiply that
// row's values by B's zeros: an infinity there would make this row NaN, hence A's mask.
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
