// Exercise tiled-matmul (check: the page's Check button, or tilekit exercise check tiled-matmul FILE).
// The tiled kernel `tiled` lost its two barriers: put them back.
// Only the TODO changes; the solution is the project's own shader (tilekit exercise list says which).

// Matrix multiply C = A·B, row-major f32, A is M×K, B is K×N, any M, K, N >= 1.
// PMPP 3rd ed. chapter 4: naive (fig 4.3), tiled in workgroup memory with two
// barriers per phase (fig 4.16) and boundary checks (fig 4.20), and the register-blocked kernel
// that makes it fast. Every launch is a linear count of output tiles folded into 2-D
// (src/dispatch.rs): tile = x + y * grid width; tiles past the end load zeros and store nothing.

struct Params {
    m: u32,
    k: u32,
    n: u32,
    tiles_x: u32,  // output tiles per row of C: ceil(N / tile width)
}

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> p: Params;

fn tile_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

// ---- naive: one invocation per element of C; every multiply-add reads A and B from global
// memory, so the compute-to-global-memory-access ratio is 1.0 (fig 4.3).

const NAIVE: u32 = 16u;

@compute @workgroup_size(NAIVE, NAIVE)
fn naive(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = tile_index(wid, nwg);
    let row = (t / p.tiles_x) * NAIVE + lid.y;
    let col = (t % p.tiles_x) * NAIVE + lid.x;
    if (row < p.m && col < p.n) {
        var acc = 0.0;
        for (var kk = 0u; kk < p.k; kk++) {
            acc += a[row * p.k + kk] * b[kk * p.n + col];
        }
        c[row * p.n + col] = acc;
    }
}

// ---- tiled: TILE×TILE tiles of A and B in workgroup memory (Mds, Nds in fig 4.16). Each phase
// loads one tile of each, so every global element is read once per workgroup instead of once per
// invocation: global loads drop by a factor of TILE. TILE is set by the planner.

override TILE: u32 = 16u;
var<workgroup> mds: array<f32, TILE * TILE>;
var<workgroup> nds: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn tiled(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = tile_index(wid, nwg);
    let tx = lid.x;
    let ty = lid.y;
    let row = (t / p.tiles_x) * TILE + ty;
    let col = (t % p.tiles_x) * TILE + tx;
    var acc = 0.0;
    let phases = (p.k + TILE - 1u) / TILE;
    for (var ph = 0u; ph < phases; ph++) {
        // Fig 4.20: load 0.0 outside the matrix, so partial tiles add nothing.
        let ak = ph * TILE + tx;
        var av = 0.0;
        if (row < p.m && ak < p.k) {
            av = a[row * p.k + ak];
        }
        mds[ty * TILE + tx] = av;
        let bk = ph * TILE + ty;
        var bv = 0.0;
        if (bk < p.k && col < p.n) {
            bv = b[bk * p.n + col];
        }
        nds[ty * TILE + tx] = bv;
        // TODO (fig 4.16): the whole tile must be loaded before anyone reads it.
        for (var kk = 0u; kk < TILE; kk++) {
            acc += mds[ty * TILE + kk] * nds[kk * TILE + tx];
        }
        // TODO (fig 4.16): nobody may overwrite the tile while others still read it.
    }
    // Fig 4.20: store only inside C.
    if (row < p.m && col < p.n) {
        c[row * p.n + col] = acc;
    }
}

// ---- blocked: each workgroup computes a BM×BN block of C, each invocation a TM×TN register tile
// (interleaved: rows ty + i·(BM/TM), columns tx + j·(BN/TN), so workgroup-memory reads broadcast
// or hit consecutive banks, and stores are coalesced). K is walked in BK slices staged through
// workgroup memory. Per slice a workgroup loads (BM + BN)·BK floats for BM·BN·BK multiply-adds:
// global loads drop by 2·BM·BN / (BM + BN) against the naive kernel, and each value read from
// workgroup memory feeds TN (or TM) multiply-adds from registers.
// WGSL rejects function-scope arrays sized by an override (docs/wgpu-notes.md 6), so the register
// tiles are MAX_T×MAX_T and the loops run to TM and TN, constants once the pipeline is built.

override BM: u32 = 64u;
override BN: u32 = 64u;
override BK: u32 = 8u;
override TM: u32 = 4u;
override TN: u32 = 4u;
const MAX_T: u32 = 8u;

var<workgroup> a_slice: array<f32, BK * BM>;  // transposed: a_slice[kk * BM + r]
var<workgroup> b_slice: array<f32, BK * BN>;  // b_slice[kk * BN + c]

// vec4 views of A and B for the blocked kernel when K and N are multiples of 4, so that every row
// of A and B starts on a 16-byte boundary (CUDA Handbook 8.1: float4 loads).
@group(0) @binding(4) var<storage, read> a4: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> b4: array<vec4<f32>>;

// The inner product over one BK slice: each invocation's TM×TN register tile.
fn multiply_slice(lid: vec3<u32>, acc: ptr<function, array<f32, MAX_T * MAX_T>>) {
    let wx = BN / TN;
    let wy = BM / TM;
    var a_reg: array<f32, MAX_T>;
    var b_reg: array<f32, MAX_T>;
    for (var kk = 0u; kk < BK; kk++) {
        for (var i = 0u; i < TM; i++) {
            a_reg[i] = a_slice[kk * BM + lid.y + i * wy];
        }
        for (var j = 0u; j < TN; j++) {
            b_reg[j] = b_slice[kk * BN + lid.x + j * wx];
        }
        for (var i = 0u; i < TM; i++) {
            for (var j = 0u; j < TN; j++) {
                (*acc)[i * MAX_T + j] += a_reg[i] * b_reg[j];
            }
        }
    }
}

fn store_block(lid: vec3<u32>, row0: u32, col0: u32, acc: ptr<function, array<f32, MAX_T * MAX_T>>) {
    let wx = BN / TN;
    let wy = BM / TM;
    for (var i = 0u; i < TM; i++) {
        let r = row0 + lid.y + i * wy;
        for (var j = 0u; j < TN; j++) {
            let cc = col0 + lid.x + j * wx;
            if (r < p.m && cc < p.n) {
                c[r * p.n + cc] = (*acc)[i * MAX_T + j];
            }
        }
    }
}

@compute @workgroup_size(BN / TN, BM / TM)
fn blocked(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_id) lid: vec3<u32>) {
    let threads = (BN / TN) * (BM / TM);
    let me = lid.y * (BN / TN) + lid.x;
    let t = tile_index(wid, nwg);
    let row0 = (t / p.tiles_x) * BM;
    let col0 = (t % p.tiles_x) * BN;
    var acc: array<f32, MAX_T * MAX_T>;
    for (var i = 0u; i < MAX_T * MAX_T; i++) {
        acc[i] = 0.0;
    }
    for (var k0 = 0u; k0 < p.k; k0 += BK) {
        // Stage A[row0.., k0..] transposed and B[k0.., col0..]; zeros outside the matrices.
        for (var e = me; e < BM * BK; e += threads) {
            let r = e / BK;
            let kk = e % BK;
            var v = 0.0;
            if (row0 + r < p.m && k0 + kk < p.k) {
                v = a[(row0 + r) * p.k + k0 + kk];
            }
            a_slice[kk * BM + r] = v;
        }
        for (var e = me; e < BK * BN; e += threads) {
            let kk = e / BN;
            let cc = e % BN;
            var v = 0.0;
            if (k0 + kk < p.k && col0 + cc < p.n) {
                v = b[(k0 + kk) * p.n + col0 + cc];
            }
            b_slice[kk * BN + cc] = v;
        }
        workgroupBarrier();
        multiply_slice(lid, &acc);
        workgroupBarrier();
    }
    store_block(lid, row0, col0, &acc);
}

// The same with 128-bit loads: four consecutive floats of a row of A or B per load. Needs K and N
// multiples of 4 (the host checks) and BK, BN multiples of 4 (every planner candidate is).
@compute @workgroup_size(BN / TN, BM / TM)
fn blocked_vec4(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_id) lid: vec3<u32>) {
    let threads = (BN / TN) * (BM / TM);
    let me = lid.y * (BN / TN) + lid.x;
    let t = tile_index(wid, nwg);
    let row0 = (t / p.tiles_x) * BM;
    let col0 = (t % p.tiles_x) * BN;
    var acc: array<f32, MAX_T * MAX_T>;
    for (var i = 0u; i < MAX_T * MAX_T; i++) {
        acc[i] = 0.0;
    }
    for (var k0 = 0u; k0 < p.k; k0 += BK) {
        for (var e = me; e < BM * BK / 4u; e += threads) {
            let r = e / (BK / 4u);
            let kk = 4u * (e % (BK / 4u));
            var v = vec4<f32>(0.0);
            if (row0 + r < p.m && k0 + kk < p.k) {
                v = a4[((row0 + r) * p.k + k0 + kk) / 4u];
            }
            a_slice[kk * BM + r] = v.x;
            a_slice[(kk + 1u) * BM + r] = v.y;
            a_slice[(kk + 2u) * BM + r] = v.z;
            a_slice[(kk + 3u) * BM + r] = v.w;
        }
        for (var e = me; e < BK * BN / 4u; e += threads) {
            let kk = e / (BN / 4u);
            let cc = 4u * (e % (BN / 4u));
            var v = vec4<f32>(0.0);
            if (k0 + kk < p.k && col0 + cc < p.n) {
                v = b4[((k0 + kk) * p.n + col0 + cc) / 4u];
            }
            let base = kk * BN + cc;
            b_slice[base] = v.x;
            b_slice[base + 1u] = v.y;
            b_slice[base + 2u] = v.z;
            b_slice[base + 3u] = v.w;
        }
        workgroupBarrier();
        multiply_slice(lid, &acc);
        workgroupBarrier();
    }
    store_block(lid, row0, col0, &acc);
}
