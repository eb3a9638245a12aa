// Support passes of the fast matmul variants (joined in front of matmul_pipelined.wgsl and
// matmul_gemv.wgsl): `pad` copies a ragged matrix into one whose rows are a multiple of 4 floats
// (zeros outside, as PMPP fig 4.20 loads 0.0 outside the matrix), so that the main kernel keeps
// 128-bit loads (CUDA Handbook 8.1) everywhere, and `pad2` copies A and B so in one launch;
// `sum_splits` adds the split-K partial products
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
    _p0: u32,
    _p1: u32,
    _p2: u32,
}

@group(0) @binding(10) var<storage, read> pad_src: array<Elem>;
@group(0) @binding(11) var<storage, read_write> pad_dst: array<Elem4>;
@group(0) @binding(12) var<uniform> pp: PadParams;
@group(0) @binding(13) var<storage, read> partials: array<vec4<f32>>;
@group(0) @binding(14) var<storage, read_write> sum_out: array<Out>;    // C (`sum_splits`)
@group(0) @binding(15) var<uniform> sp: SumParams;
@group(0) @binding(16) var<storage, read_write> sum_out4: array<Out4>;  // C (`sum_splits4`)
@group(0) @binding(17) var<storage, read> pad_src_b: array<Elem>;        // B (`pad2`)
@group(0) @binding(18) var<storage, read_write> pad_dst_b: array<Elem4>;
@group(0) @binding(19) var<uniform> pp_b: PadParams;

const SUPPORT_WG: u32 = 256u;

// `sum_splits`: each lane's share of the partials of the workgroup's elements.
var<workgroup> lane_sums: array<vec4<f32>, SUPPORT_WG>;

fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: vec3<u32>) -> u32 {
    return (wid.x + wid.y * nwg.x) * SUPPORT_WG + lid.x;
}

// The vec4s of `p`'s destination, and where element j of the i-th comes from: its index in the
// source, or NONE outside it (a zero, fig 4.20).
const NONE: u32 = 0xffffffffu;

fn pad_count(p: PadParams) -> u32 {
    return p.rows_out * (p.cols_out / 4u);
}

fn pad_index(p: PadParams, i: u32, j: u32) -> u32 {
    let q = p.cols_out / 4u;
    let r = i / q;
    let c = 4u * (i % q) + j;
    if (r < p.rows && c < p.cols) {
        return r * p.cols + c;
    }
    return NONE;
}

// The i-th vec4 of the copy of `pad_src`, gathered from four scalar loads: a ragged row starts
// anywhere in a vec4 (two aligned vec4 loads and a shift ran no faster in f32 and 3–10% slower in
// f16, BENCHMARKS.md, "Ragged operands: copied or read in place").
fn pad_vec4(i: u32) -> Elem4 {
    var v = Elem4();
    for (var j = 0u; j < 4u; j++) {
        let s = pad_index(pp, i, j);
        if (s != NONE) {
            v[j] = pad_src[s];
        }
    }
    return v;
}

// The same for `pad_src_b` (`pad2`'s second copy): written twice, since a WGSL function cannot
// take a pointer to a storage buffer in naga 30 (docs/wgpu-notes.md 17).
fn pad_vec4_b(i: u32) -> Elem4 {
    var v = Elem4();
    for (var j = 0u; j < 4u; j++) {
        let s = pad_index(pp_b, i, j);
        if (s != NONE) {
            v[j] = pad_src_b[s];
        }
    }
    return v;
}

// One invocation per 4 destination floats.
@compute @workgroup_size(SUPPORT_WG)
fn pad(@builtin(workgroup_id) wid: vec3<u32>,
       @builtin(num_workgroups) nwg: vec3<u32>,
       @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = linear_id(wid, nwg, lid);
    if (i < pad_count(pp)) {
        pad_dst[i] = pad_vec4(i);
    }
}

// A ragged K and N: A's copy (`pp`) and B's (`pp_b`) in one launch, A's vec4s first. Two launches
// are two waves one behind the other: the second waits at the barrier between them for the
// first one's last workgroups (H100: f16 1000×1001×1003 31.6 → 29.4 µs, BENCHMARKS.md,
// "Ragged operands: copied or read in place").
@compute @workgroup_size(SUPPORT_WG)
fn pad2(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let i = linear_id(wid, nwg, lid);
    let na = pad_count(pp);
    if (i < na) {
        pad_dst[i] = pad_vec4(i);
    } else if (i - na < pad_count(pp_b)) {
        pad_dst_b[i - na] = pad_vec4_b(i - na);
    }
}

// Per 4 floats of a row of the partials, `lanes` invocations, each adding every lanes-th
// partial, then their sums added in workgroup memory (the tree of lesson 04), the total in lane
// 0's. One invocation per element, as before, left a small C over many splits to a handful of
// workgroups reading hundreds of partials each, one after the other (f32 64×65536×64 in 228
// splits: 1,024 invocations, 4 workgroups); the host gives such a sum more lanes
// (`support::sum_lanes`). Consecutive invocations read consecutive vec4s of one partial.
struct SumOf {
    first: u32,      // the workgroup's first 4 floats of the partials' m×ld
    per: u32,        // how many of 4 floats the workgroup sums (its lane 0's invocations)
    i: u32,          // which 4 floats this invocation sums: first + its place among the per
    store: bool,     // this invocation stores them (lane 0, inside)
    acc: vec4<f32>,  // their sum over the splits
}

fn sum_of_splits(wid: vec3<u32>, nwg: vec3<u32>, lid: vec3<u32>) -> SumOf {
    let q = sp.ld / 4u;
    let per = SUPPORT_WG / sp.lanes;  // elements (of 4 floats) per workgroup
    let lane = lid.x / per;
    let first = (wid.x + wid.y * nwg.x) * per;
    let i = first + lid.x % per;
    let inside = i < sp.m * q;
    var acc = vec4<f32>(0.0);
    if (inside) {
        for (var s = lane; s < sp.splits; s += sp.lanes) {
            acc += partials[s * sp.m * q + i];
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
    return SumOf(first, per, i, inside && lane == 0u, acc);
}

// The partials' sum into C where N is ragged: C's rows start anywhere, so its elements go out one
// at a time, masked at N. The workgroup's sums pass through workgroup memory first, so that
// consecutive invocations store consecutive elements of C (coalesced, CUDA Handbook 8.1). With
// each invocation storing its own four, a subgroup's stores lay 4 elements apart and each store
// instruction touched four times the memory it wrote: on the H100 that sum took 29 µs of f32
// 2048×2048×2047, about twice what its bytes need, and the whole product ran in 427 µs against
// 414 with the stores in order (BENCHMARKS.md, "Ragged operands: copied or read in place").
@compute @workgroup_size(SUPPORT_WG)
fn sum_splits(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_id) lid: vec3<u32>) {
    let s = sum_of_splits(wid, nwg, lid);
    workgroupBarrier();  // the lanes' tree is done with lane_sums
    if (lid.x < s.per) {
        lane_sums[lid.x] = s.acc;  // lane 0's sums: the workgroup's i-th 4 floats at lane_sums[i]
    }
    workgroupBarrier();
    // The workgroup's 4·per floats of the partials' m×ld, in order.
    for (var f = lid.x; f < 4u * s.per; f += SUPPORT_WG) {
        let p = 4u * s.first + f;
        let r = p / sp.ld;
        let c = p % sp.ld;
        if (r < sp.m && c < sp.n) {
            sum_out[r * sp.n + c] = Out(lane_sums[f / 4u][f % 4u]);
        }
    }
}

// The same where N is a multiple of 4: the partials' rows are C's (ld = n), and each sum of 4
// is one vec4 of C. Stored as four scalars, as every sum was before, it cost 5% of the whole
// f32 1024³ in 2 splits on the H100 (69.7 against 65.7 µs, BENCHMARKS.md, "Split of K by waves"). Its own
// entry point, with C bound as vec4s: the same buffer bound both ways in one dispatch is what
// Chromium's WebGPU refuses ("writable storage buffer binding aliasing").
@compute @workgroup_size(SUPPORT_WG)
fn sum_splits4(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_id) lid: vec3<u32>) {
    let s = sum_of_splits(wid, nwg, lid);
    if (s.store) {
        sum_out4[s.i] = Out4(s.acc);
    }
}

// Even shares (stream-K's form in `pipelined_stream` and `coop_stream`): the `tiles` blocks'
// `units` units of K each, laid end to end, cut into `workgroups` shares; the first r shares have
// one unit more than the rest. The first unit of share w.
fn share_start(w: u32, tiles: u32, units: u32, workgroups: u32) -> u32 {
    let total = tiles * units;
    let q = total / workgroups;
    let r = total % workgroups;
    return w * q + min(w, r);
}

// The share that holds unit i.
fn share_of(i: u32, tiles: u32, units: u32, workgroups: u32) -> u32 {
    let total = tiles * units;
    let q = total / workgroups;
    let r = total % workgroups;
    if (i < r * (q + 1u)) {
        return i / (q + 1u);
    }
    return r + (i - r * (q + 1u)) / q;
}

// The first and the last share that hold part of the block whose units start at `lo`.
fn shares_of_block(lo: u32, tiles: u32, units: u32, workgroups: u32) -> vec2<u32> {
    return vec2<u32>(share_of(lo, tiles, units, workgroups),
                     share_of(lo + units - 1u, tiles, units, workgroups));
}

// Each share writes its first piece to partial block 2w and its last to 2w + 1 (a share inside
// one block has only a first). The slot of share w's piece of the block whose units start at
// `lo`, w0 the first share holding part of it: that share's last piece unless the share starts
// with this block, every later share's first.
fn piece_slot(w: u32, w0: u32, lo: u32, tiles: u32, units: u32, workgroups: u32) -> u32 {
    return 2u * w + select(0u, 1u, w == w0 && share_start(w, tiles, units, workgroups) < lo);
}
