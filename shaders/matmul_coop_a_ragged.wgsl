// The cooperative matmul's global loads where K or N is not a multiple of 4 (joined after
// matmul_coop.wgsl): a row of A or of B then starts anywhere, so each vec4 is gathered from four
// scalar loads (the pipelined kernel's ragged loads, matmul_pipelined_a_ragged.wgsl). The host
// takes these loads on skinny products (coop.rs): there copying A and B into rows of 4 first
// costs more than the product, which the matrix units make short.
// As in the wide loads, a slice wholly inside K is loaded unmasked: rows past M read row M-1 and
// columns past N read on into the next row of B, values that only reach rows and columns of C
// that are never stored; only the last element of B bounds the index (the last row's columns
// past N would read past the end). The slices at the end of K are masked element by element.

@group(0) @binding(0) var<storage, read> ca1: array<Elem>;
@group(0) @binding(1) var<storage, read> cb1: array<Elem>;

// Where an invocation's loads of the slice at k = 0 start, in elements of A and of B.
fn origins(me: u32, row0: u32, col0: u32) -> Origins {
    var o: Origins;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BM * BK / 4u % INVOCATIONS != 0u) {
            e = min(e, BM * BK / 4u - 1u);
        }
        o.a[i] = min(row0 + e / (BK / 4u), cp.m - 1u) * cp.k + 4u * (e % (BK / 4u));
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BK * BN / 4u % INVOCATIONS != 0u) {
            e = min(e, BK * BN / 4u - 1u);
        }
        o.b[i] = (e / (BN / 4u)) * cp.n + min(col0 + 4u * (e % (BN / 4u)), cp.n - 1u);
    }
    return o;
}

// The loads of the slice at k0, which lies wholly inside K: unmasked but for B's last element.
fn fetch(o: Origins, k0: u32) -> Slice {
    var s: Slice;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        let at = o.a[i] + k0;
        s.a[i] = vec4<f16>(ca1[at], ca1[at + 1u], ca1[at + 2u], ca1[at + 3u]);
    }
    let last = cp.k * cp.n - 1u;
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        let at = o.b[i] + k0 * cp.n;
        s.b[i] = vec4<f16>(cb1[at], cb1[min(at + 1u, last)], cb1[min(at + 2u, last)],
                           cb1[min(at + 3u, last)]);
    }
    return s;
}

// The loads of a slice at the end of K: zeros past k_end and outside the matrices, element by
// element (a slice beyond the last adds nothing). Past K a row of A would read into the next,
// whose values would meet B's zeros: an infinity there would make this row NaN, hence A's mask.
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
