// The cooperative matmul's global loads of B where its rows are multiples of 4 halves (joined
// after matmul_coop.wgsl, with one of the two files for A): each vec4 is one 64-bit load. A
// ragged N comes here copied into rows of 4 (zeros past N), so a row is `b_row4()` vec4s long;
// B keeps its K rows, and no load reaches past k_end.

// B's row length in vec4s: N rounded up to 4.
fn b_row4() -> u32 {
    return (cp.n + 3u) / 4u;
}

@group(0) @binding(1) var<storage, read> cb4: array<Elem4>;

// Where the vec4 of columns 4·cq..4·cq+3 of row `kk` of the slice at k = 0 is, in vec4s of B
// (columns past N: B's last vec4 of the row).
fn b_origin(kk: u32, cq: u32) -> u32 {
    return kk * b_row4() + min(cq, b_row4() - 1u);
}

// The vec4 at `at` (a `b_origin`) in the slice at k0, which lies wholly inside K: unmasked.
fn fetch_b(at: u32, k0: u32) -> vec4<f16> {
    return vec4<f16>(cb4[at + k0 * b_row4()]);
}

// The i-th vec4 of B's slice at k0 at the end of K: zeros past k_end and past N.
fn load_b_edge(me: u32, i: u32, col0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let kk = k0 + e / (BN / 4u);
    let c = col0 + 4u * (e % (BN / 4u));
    if (e < BK * BN / 4u && kk < k_end && c < cp.n) {
        return vec4<f16>(cb4[kk * b_row4() + c / 4u]);
    }
    return vec4<f16>();
}
