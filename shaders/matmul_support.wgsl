// Support passes of the fast matmul variants (joined in front of matmul_pipelined.wgsl and
// matmul_gemv.wgsl): `pad` copies a ragged matrix into one whose rows are a multiple of 4 floats
// (zeros outside, as PMPP fig 4.20 loads 0.0 outside the matrix), so that the main kernel keeps
// 128-bit loads (CUDA Handbook 8.1) everywhere; `sum_splits` adds the split-K partial products
// (one per slice of K) into C. Every launch is a linear count folded into 2-D (src/dispatch.rs).

struct PadParams {
    rows: u32,      // rows of the source
    cols: u32,      // columns of the source
    rows_out: u32,  // rows of the destination (>= rows; the extra rows are zeros)
    cols_out: u32,  // columns of the destination (>= cols, a multiple of 4)
}

// For `sum_splits`: C (m×n) = Σ over `splits` partials of m×ld floats each (ld >= n), each
// element's partials summed by `lanes` invocations side by side (a power of two).
struct SumParams {
    m: u32,
    n: u32,
    ld: u32,
    splits: u32,
    lanes: u32,
    gather: u32,  // 1: each invocation gathers a vec4 of C's flat m×n from rows of ld (ragged N)
    _p1: u32,
    _p2: u32,
}

@group(0) @binding(10) var<storage, read> pad_src: array<Elem>;
@group(0) @binding(11) var<storage, read_write> pad_dst: array<Elem4>;
@group(0) @binding(12) var<uniform> pp: PadParams;
@group(0) @binding(13) var<storage, read> partials: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read_write> sum_out: array<Out>;    // C, element by element
@group(0) @binding(16) var<storage, read_write> sum_out4: array<Out4>;  // the same C, in vec4s
@group(0) @binding(15) var<uniform> sp: SumParams;

const SUPPORT_WG: u32 = 256u;

// `sum_splits`: each lane's share of the partials of the workgroup's elements.
var<workgroup> lane_sums: array<vec4<f32>, SUPPORT_WG>;

fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: vec3<u32>) -> u32 {
    return (wid.x + wid.y * nwg.x) * SUPPORT_WG + lid.x;
}

// One invocation per 4 destination floats.
@compute @workgroup_size(SUPPORT_WG)
fn pad(@builtin(workgroup_id) wid: vec3<u32>,
       @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_id) lid: vec3<u32>) {
    let q = pp.cols_out / 4u;
    let i = linear_id(wid, nwg, lid);
    if (i >= pp.rows_out * q) {
        return;
    }
    let r = i / q;
    let c0 = 4u * (i % q);
    var v = Elem4();
    if (r < pp.rows) {
        for (var j = 0u; j < 4u; j++) {
            if (c0 + j < pp.cols) {
                v[j] = pad_src[r * pp.cols + c0 + j];
            }
        }
    }
    pad_dst[i] = v;
}

// Per 4 elements, `lanes` invocations, each adding every lanes-th partial, then their sums
// added in workgroup memory (the tree of lesson 04) and stored to C. One invocation per element,
// as before, left a small C over many splits to a handful of workgroups reading hundreds of
// partials each, one after the other (f32 64×65536×64 in 228 splits: 1,024 invocations, 4
// workgroups); the host gives such a sum more lanes (`support::sum_lanes`).
// Which 4 elements: where N is a multiple of 4 the partials' rows are C's (ld = n), and each
// invocation reads a vec4 of every partial and stores one vec4 of C. Where N is ragged the
// partials' rows are longer (n rounded up to 4) and C's rows start anywhere: over a few splits
// (`gather`) each invocation gathers the 4 elements of one vec4 of C's m×n laid out flat from
// them and stores it whole; over many, where reading the partials is the work, it reads a vec4
// of a partial's row and stores its elements one by one. Stores of four scalars per vec4, as
// every sum made before, cost 1–4% of the whole product on the H100 over 2–5 splits
// (1000×1001×1003 78.7 against 75.6 µs, 2049×1000×1031 154 against 150, 1024³ 69.4 against 65.0),
// and the gathered reads as much over 15–20 splits (65×4099×1001 42.1 against 43.0 µs;
// BENCHMARKS.md, 2026-11-25). Where m·n is not a multiple of 4 the last vec4 of C is stored
// element by element: nothing past C is touched.
@compute @workgroup_size(SUPPORT_WG)
fn sum_splits(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_id) lid: vec3<u32>) {
    let q = sp.ld / 4u;
    let per = SUPPORT_WG / sp.lanes;  // vec4s per workgroup
    let lane = lid.x / per;
    let i = (wid.x + wid.y * nwg.x) * per + lid.x % per;
    let total = sp.m * sp.n;
    var inside = i < sp.m * q;
    if (sp.gather == 1u) {
        inside = i < (total + 3u) / 4u;
    }
    var acc = vec4<f32>(0.0);
    if (inside) {
        if (sp.gather == 1u) {
            // Where each of the 4 elements lies in a partial (rows of ld); past C: its last.
            var at: vec4<u32>;
            for (var j = 0u; j < 4u; j++) {
                let e = min(4u * i + j, total - 1u);
                at[j] = (e / sp.n) * sp.ld + e % sp.n;
            }
            for (var s = lane; s < sp.splits; s += sp.lanes) {
                let x = s * sp.m * sp.ld + at;
                acc += vec4<f32>(partials[x.x / 4u][x.x % 4u], partials[x.y / 4u][x.y % 4u],
                                 partials[x.z / 4u][x.z % 4u], partials[x.w / 4u][x.w % 4u]);
            }
        } else {
            for (var s = lane; s < sp.splits; s += sp.lanes) {
                acc += partials[s * sp.m * q + i];
            }
        }
    }
    if (sp.lanes > 1u) {
        lane_sums[lid.x] = acc;
        workgroupBarrier();
        for (var w = sp.lanes / 2u; w > 0u; w /= 2u) {
            if (lane < w) {
                lane_sums[lid.x] += lane_sums[lid.x + w * per];
            }
            workgroupBarrier();
        }
        acc = lane_sums[lid.x];
    }
    if (!inside || lane != 0u) {
        return;
    }
    if (sp.gather == 1u || sp.n == sp.ld) {
        // A vec4 of C's m×n laid out flat (with ld = n the partials' vec4 i is C's).
        if (4u * i + 4u <= total) {
            sum_out4[i] = Out4(acc);
        } else {
            for (var j = 0u; 4u * i + j < total; j++) {
                sum_out[4u * i + j] = Out(acc[j]);
            }
        }
    } else {
        // A vec4 of a partial's row, into C's ragged row element by element.
        let r = i / q;
        let c0 = 4u * (i % q);
        for (var j = 0u; j < 4u; j++) {
            if (c0 + j < sp.n) {
                sum_out[r * sp.n + c0 + j] = Out(acc[j]);
            }
        }
    }
}
