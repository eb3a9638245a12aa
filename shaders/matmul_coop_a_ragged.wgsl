// The cooperative matmul's global loads of A where K is not a multiple of 4 (joined after
// matmul_coop.wgsl, with one of the two files for B): a row of A then starts anywhere, so each
// vec4 is gathered from four scalar loads (the pipelined kernel's ragged loads,
// matmul_pipelined_a_ragged.wgsl). The host takes these loads on skinny products (coop.rs):
// there copying A and B into rows of 4 first costs more than the product, which the matrix units
// make short. Each operand is read wide where its own rows allow: with only N ragged A's loads
// stay 64 bits wide, with only K ragged B's.
// As in the wide loads, a slice wholly inside K is loaded unmasked (rows past M read row M-1,
// values that only reach rows of C that are never stored); the slices at the end of K are masked
// element by element.

@group(0) @binding(0) var<storage, read> ca1: array<Elem>;

// Where the vec4 `q` of row `r` of the slice at k = 0 starts, in elements of A.
fn a_origin(r: u32, q: u32) -> u32 {
    return min(r, cp.m - 1u) * cp.k + 4u * q;
}

// The vec4 at `at` (an `a_origin`) in the slice at k0, which lies wholly inside K: unmasked.
fn fetch_a(at: u32, k0: u32) -> vec4<f16> {
    let e = at + k0;
    return vec4<f16>(ca1[e], ca1[e + 1u], ca1[e + 2u], ca1[e + 3u]);
}

// The i-th vec4 of A's slice at k0 at the end of K: zeros past k_end and past M, element by
// element. Past K a row of A would read into the next, whose values would meet B's zeros: an
// infinity there would make this row NaN, hence the mask.
fn load_a_edge(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let r = row0 + e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    var v = vec4<f16>();
    if (e < BM * BK / 4u && r < cp.m) {
        for (var j = 0u; j < 4u; j++) {
            if (kk + j < k_end) {
                v[j] = ca1[r * cp.k + kk + j];
            }
        }
    }
    return v;
}
