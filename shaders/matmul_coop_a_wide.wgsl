// The cooperative matmul's global loads of A where its rows are multiples of 4 halves (joined
// after matmul_coop.wgsl, with one of the two files for B): each vec4 is one 64-bit load. A
// ragged K comes here copied into rows of 4 (zeros past K), so a row is `a_row4()` vec4s long.

// A's row length in vec4s: K rounded up to 4.
fn a_row4() -> u32 {
    return (cp.k + 3u) / 4u;
}

@group(0) @binding(0) var<storage, read> ca4: array<Elem4>;

// Where the vec4 `q` of row `r` of the slice at k = 0 is, in vec4s of A (`r` past M: row M-1).
fn a_origin(r: u32, q: u32) -> u32 {
    return min(r, cp.m - 1u) * a_row4() + q;
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
        return vec4<f16>(ca4[r * a_row4() + kk / 4u]);
    }
    return vec4<f16>();
}
