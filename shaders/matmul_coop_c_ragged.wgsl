// The cooperative matmul's stores into a C whose N is ragged, in one slice of K (joined after
// matmul_coop.wgsl and its loads): element by element, with bounds checks, since a row of C does
// not start on a vec4.
@group(0) @binding(2) var<storage, read_write> cc: array<Out>;

// The subgroup's fragment, in its scratch (row-major 16×16 f32), into C at rows r0.., columns
// c0..: 256 / SG values per invocation, consecutive invocations on consecutive elements, each
// invocation reading all of its values before it stores any (see `store_frag`).
fn store_share(scratch: u32, out: u32, r0: u32, c0: u32, lane: u32) {
    var v: array<f32, LANE_VALUES_MAX>;
    for (var j = 0u; j < 256u / SG; j++) {
        v[j] = c_s[scratch + lane + j * SG];
    }
    for (var j = 0u; j < 256u / SG; j++) {
        let e = lane + j * SG;
        let r = r0 + e / FRAG;
        let c = c0 + e % FRAG;
        if (r < cp.m && c < cp.n_out) {
            cc[out + r * cp.ld + c] = Out(v[j]);
        }
    }
}

// Four values of a row of C at (row, col), each inside M and N stored (`stream_fixup`).
fn store_c4(row: u32, col: u32, v: vec4<f32>) {
    for (var e = 0u; e < 4u; e++) {
        if (row < cp.m && col + e < cp.n_out) {
            cc[row * cp.ld + col + e] = Out(v[e]);
        }
    }
}
