// The cooperative matmul's global loads of A where K is a multiple of 4 (joined after
// matmul_coop.wgsl, with one of the two files for B): each vec4 is one 64-bit load.

@group(0) @binding(0) var<storage, read> ca4: array<Elem4>;

// Where the vec4 `q` of row `r` of the slice at k = 0 is, in vec4s of A (`r` past M: row M-1).
fn a_origin(r: u32, q: u32) -> u32 {
    return min(r, cp.m - 1u) * (cp.k / 4u) + q;
}

// The vec4 at `at` (an `a_origin`) in the slice at k0, which lies wholly inside K: unmasked.
fn fetch_a(at: u32, k0: u32) -> vec4<f16> {
    return vec4<f16>(ca4[at + k0 / 4u]);
}

// The i-th vec4 of A's slice at k0 at the end of K: zeros past k_end and past M (a slice beyond
// the last adds nothing).
fn load_a_edge(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let r = row0 + e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    if (e < BM * BK / 4u && r < cp.m && kk < k_end) {
        return vec4<f16>(ca4[(r * cp.k + kk) / 4u]);
    }
    return vec4<f16>();
}
