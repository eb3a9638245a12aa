// The cooperative matmul's global loads of B where N is not a multiple of 4 (joined after
// matmul_coop.wgsl, with one of the two files for A): a row of B then starts anywhere, so each
// vec4 is gathered from four scalar loads (why in place: matmul_coop_a_ragged.wgsl). In a slice
// wholly inside K, columns past N read on into B's next row: values that only reach columns of C
// that are never stored. Only the last element of B bounds the index (the last row's columns
// past N would read past the end).

@group(0) @binding(1) var<storage, read> cb1: array<Elem>;

// Where the vec4 of columns 4·cq..4·cq+3 of row `kk` of the slice at k = 0 starts, in elements
// of B (columns past N: from the row's last element).
fn b_origin(kk: u32, cq: u32) -> u32 {
    return kk * cp.n + min(4u * cq, cp.n - 1u);
}

// The vec4 at `at` (a `b_origin`) in the slice at k0, which lies wholly inside K: unmasked but
// for B's last element.
fn fetch_b(at: u32, k0: u32) -> vec4<f16> {
    let e = at + k0 * cp.n;
    let last = cp.k * cp.n - 1u;
    return vec4<f16>(cb1[e], cb1[min(e + 1u, last)], cb1[min(e + 2u, last)],
                     cb1[min(e + 3u, last)]);
}

// The i-th vec4 of B's slice at k0 at the end of K: zeros past k_end and past N, element by
// element.
fn load_b_edge(me: u32, i: u32, col0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let kk = k0 + e / (BN / 4u);
    let c = col0 + 4u * (e % (BN / 4u));
    var v = vec4<f16>();
    if (e < BK * BN / 4u && kk < k_end) {
        for (var j = 0u; j < 4u; j++) {
            if (c + j < cp.n) {
                v[j] = cb1[kk * cp.n + c + j];
            }
        }
    }
    return v;
}
