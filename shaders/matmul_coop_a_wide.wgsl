// The cooperative matmul's global loads where every row of A and of B is a multiple of 4 halves
// (joined after matmul_coop.wgsl): each vec4 is one 64-bit load.

@group(0) @binding(0) var<storage, read> ca4: array<Elem4>;
@group(0) @binding(1) var<storage, read> cb4: array<Elem4>;

fn origins(me: u32, row0: u32, col0: u32) -> Origins {
    var o: Origins;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BM * BK / 4u % INVOCATIONS != 0u) {
            e = min(e, BM * BK / 4u - 1u);
        }
        o.a[i] = min(row0 + e / (BK / 4u), cp.m - 1u) * (cp.k / 4u) + e % (BK / 4u);
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        var e = me + i * INVOCATIONS;
        if (BK * BN / 4u % INVOCATIONS != 0u) {
            e = min(e, BK * BN / 4u - 1u);
        }
        o.b[i] = (e / (BN / 4u)) * (cp.n / 4u) + min(col0 / 4u + e % (BN / 4u), cp.n / 4u - 1u);
    }
    return o;
}

// The loads of the slice at k0, which lies wholly inside K: unmasked.
fn fetch(o: Origins, k0: u32) -> Slice {
    var s: Slice;
    for (var i = 0u; i < (BM * BK / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.a[i] = vec4<f16>(ca4[o.a[i] + k0 / 4u]);
    }
    for (var i = 0u; i < (BK * BN / 4u + INVOCATIONS - 1u) / INVOCATIONS; i++) {
        s.b[i] = vec4<f16>(cb4[o.b[i] + k0 * (cp.n / 4u)]);
    }
    return s;
}

// The loads of a slice at the end of K: zeros past k_end and outside the matrices (a slice
// beyond the last adds nothing).
fn load_a_edge(me: u32, i: u32, row0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let r = row0 + e / (BK / 4u);
    let kk = k0 + 4u * (e % (BK / 4u));
    if (e < BM * BK / 4u && r < cp.m && kk < k_end) {
        return vec4<f16>(ca4[(r * cp.k + kk) / 4u]);
    }
    return vec4<f16>();
}

fn load_b_edge(me: u32, i: u32, col0: u32, k0: u32, k_end: u32) -> vec4<f16> {
    let e = me + i * INVOCATIONS;
    let kk = k0 + e / (BN / 4u);
    let c = col0 + 4u * (e % (BN / 4u));
    if (e < BK * BN / 4u && kk < k_end && c < cp.n) {
        return vec4<f16>(cb4[(kk * cp.n + c) / 4u]);
    }
    return vec4<f16>();
}
