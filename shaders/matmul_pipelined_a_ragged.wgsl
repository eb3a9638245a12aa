// The pipelined matmul's global loads of A where K is not a multiple of 4 (joined after
// matmul_pipelined.wgsl, with one of the two files for B): a row of A then starts anywhere, so a
// vec4 of it cannot be read as one; each of its four elements is a scalar load of its own, zero
// outside the matrix (PMPP fig 4.20, element by element). The vec4 is then staged and multiplied
// as a wide load's is. Each operand is read wide where its own rows allow: with only N ragged,
// A's loads stay 128 bits wide, and with only K ragged, B's (H100, BENCHMARKS.md, "Ragged operands: copied or read in place":
// 10–22% faster than both operands in scalars, at 64×4096×4095 73 µs against 91, the aligned
// 64×4096×4096 69). The host takes these loads only on skinny products (support.rs,
// `loads_in_place`): elsewhere copying A and B into rows of 4 first costs less than the four
// instructions per vec4 cost every slice (5–19% slower in place at 777×1234×2345, 2049×1000×1031
// and 4095³, 28–45% faster at 17×4099×4097, 33×4097×11007 and 8191×4095×61). Masks written with
// `select` and unconditional clamped loads, or one branch for a whole vec4 inside, ran within 4%
// of these.

@group(0) @binding(0) var<storage, read> a1: array<Elem>;

// The i-th vec4 of A's slice at k0 that invocation `me` loads: 4 consecutive k of one row, each
// up to k_end. Past K a row of A would read into the next, whose values would meet B's zeros:
// an infinity there would make this row NaN, hence the mask.
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
