// The small-M matmul (joined after matmul_support.wgsl): C = A·B when A has few rows, the
// matrix-vector product at M = 1 and a small batch against a large weight up to M = 32. Output
// blocks of BM×BN cannot fill a GPU here (at M = 1 a 128×128 block is 127/128 idle), and every
// element of B is used by at most M multiply-adds: the product is bound by reading B once, so the
// kernel is written as a bandwidth kernel (CUDA Handbook 8.1), a reduction along K:
// - each invocation owns 4 consecutive columns and MR rows of A, and walks every WK-th slice of
//   KS rows of its split of K: per slice KS 128-bit loads of B (KS/4 groups of rows k..k+3, all
//   issued before their multiply-adds, so that many loads are in flight: the wide-loads lesson)
//   and one 128-bit load of each row of A per group;
// - the WK partial sums of a column are added through workgroup memory (the reduction lesson's
//   tree, here WK wide);
// - split-K: the launch covers `splits` slices of K, so that even M = 1 × N = 4096 launches
//   enough workgroups to fill the GPU; `sum_splits` adds the slices' partial products in a
//   second launch, except for the matrix-vector product (M = 1, N a multiple of 4), whose
//   slices are added in the same launch (`gemv_summed`, below).
// The global loads are joined after this file, one file for A (`a_start`, `load_a`, `K_RAGGED`)
// and one for B (`load_b`): `matmul_gemv_a_wide.wgsl` where K is a multiple of 4 and
// `matmul_gemv_b_wide.wgsl` where N is (128-bit loads), `_a_ragged.wgsl` and `_b_ragged.wgsl`
// where not (each vec4 gathered from four scalar loads: the operands read where they lie instead
// of copied). The output's rows are multiples of 4 elements either way; the element types come
// from the prelude (`Elem4`, `Out4`), the arithmetic is f32.

struct GemvParams {
    m: u32,
    k: u32,           // columns of A = rows of B
    n: u32,           // columns of B
    col_groups: u32,  // ceil(n / (4·WX))
    row_blocks: u32,  // ceil(m / MB)
    k_split: u32,
    splits: u32,
    _pad: u32,
}

@group(0) @binding(2) var<storage, read_write> gc4: array<Out4>;
@group(0) @binding(3) var<uniform> gp: GemvParams;
// `gemv_summed` only: the splits' partial products (f32 bits), then one count per block of
// the workgroups done with it.
@group(0) @binding(4) var<storage, read_write> g_parts: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> g_tally: array<atomic<u32>>;

override WX: u32 = 64u;  // invocations along N (4 columns each)
override WK: u32 = 4u;   // invocations along K
override KS: u32 = 4u;   // rows of B per slice of an invocation (a multiple of 4)
override MR: u32 = 8u;   // rows of A per invocation: 1, 2, 4 or 8

var<workgroup> partial: array<vec4<f32>, WX * WK>;
var<workgroup> g_counted: u32;

// The MR accumulators and the rows of A they read are named fields, not arrays indexed by the
// row: an array indexed in a loop lives in local memory unless the driver unrolls the loop, and
// then every multiply-add goes through memory (what the driver made of it: BENCHMARKS.md, "the
// small-M kernel"). Fields past MR are compiled out (MR is a pipeline constant). A row past M
// reads row M-1 (clamped below) and is never stored: no branch per row in the loop.
struct Acc {
    r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, r3: vec4<f32>,
    r4: vec4<f32>, r5: vec4<f32>, r6: vec4<f32>, r7: vec4<f32>,
}

// Where each of the MR rows of A starts (`a_start`), clamped into the matrix.
struct Rows {
    r0: u32, r1: u32, r2: u32, r3: u32, r4: u32, r5: u32, r6: u32, r7: u32,
}

// The row of A that starts at `row` (`a_start`), columns k..k+3, times the four rows of B: 16
// multiply-adds onto `acc`.
fn row4(acc: vec4<f32>, row: u32, k: u32, b0: vec4<f32>, b1: vec4<f32>, b2: vec4<f32>,
        b3: vec4<f32>) -> vec4<f32> {
    let av = load_a(row, k);
    return acc + av.x * b0 + av.y * b1 + av.z * b2 + av.w * b3;
}

// One group of 4 rows of B (k..k+3) times the MR rows of A into `acc`.
fn group4(acc: ptr<function, Acc>, rows: Rows, k: u32, cq: u32) {
    let b0 = load_b(k, cq);
    let b1 = load_b(k + 1u, cq);
    let b2 = load_b(k + 2u, cq);
    let b3 = load_b(k + 3u, cq);
    (*acc).r0 = row4((*acc).r0, rows.r0, k, b0, b1, b2, b3);
    if (MR > 1u) {
        (*acc).r1 = row4((*acc).r1, rows.r1, k, b0, b1, b2, b3);
    }
    if (MR > 2u) {
        (*acc).r2 = row4((*acc).r2, rows.r2, k, b0, b1, b2, b3);
        (*acc).r3 = row4((*acc).r3, rows.r3, k, b0, b1, b2, b3);
    }
    if (MR > 4u) {
        (*acc).r4 = row4((*acc).r4, rows.r4, k, b0, b1, b2, b3);
        (*acc).r5 = row4((*acc).r5, rows.r5, k, b0, b1, b2, b3);
        (*acc).r6 = row4((*acc).r6, rows.r6, k, b0, b1, b2, b3);
        (*acc).r7 = row4((*acc).r7, rows.r7, k, b0, b1, b2, b3);
    }
}

// This invocation's share of the split [k_begin, k_end) for columns `cq` (every WK-th slice of
// KS rows of B, from slice `y`), into `acc`.
fn along_k(acc: ptr<function, Acc>, rows: Rows, k_begin: u32, k_end: u32, cq: u32, y: u32) {
    // Whole slices of KS rows: the driver unrolls the KS/4 groups (KS is a pipeline constant)
    // and may issue all their loads first.
    var k = k_begin + KS * y;
    for (; k + KS <= k_end; k += KS * WK) {
        for (var g = 0u; g < KS; g += 4u) {
            group4(acc, rows, k + g, cq);
        }
    }
    // The split's ragged end (fewer than KS rows, a multiple of 4 but at K's own end): the one
    // invocation whose slice holds it stopped at its start; the others are past k_end. A ragged
    // K's last group reaches past B's last row: B's loads give zeros there.
    for (; k < k_end; k += 4u) {
        group4(acc, rows, k, cq);
    }
}

// Add the WK partial sums of row `i` of this block's columns and store them if `i < stored`
// (the rows of the block within M; none for a workgroup past the last split). Every invocation
// calls it: it holds two barriers.
fn reduce_row(v: vec4<f32>, i: u32, stored: u32, lid: vec3<u32>, row0: u32, cq: u32, quads: u32,
              out: u32) {
    partial[lid.y * WX + lid.x] = v;
    workgroupBarrier();
    if (lid.y == 0u && i < stored && cq < quads) {
        var s = partial[lid.x];
        for (var y = 1u; y < WK; y++) {
            s += partial[y * WX + lid.x];
        }
        gc4[out + (row0 + i) * quads + cq] = Out4(s);
    }
    workgroupBarrier();
}

@compute @workgroup_size(WX, WK)
fn gemv(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = wid.x + wid.y * nwg.x;
    let per_split = gp.col_groups * gp.row_blocks;
    let split = t / per_split;
    let rem = t % per_split;
    let row0 = (rem / gp.col_groups) * MR;
    let cq = (rem % gp.col_groups) * WX + lid.x;  // which 4 columns
    let quads = (gp.n + 3u) / 4u;  // the output's rows, in vec4s
    // Workgroups past the last split (the 2-D fold rounds up) read nothing and store nothing.
    var stored = 0u;
    var k_begin = 0u;
    var k_end = 0u;
    if (split < gp.splits && row0 < gp.m) {
        stored = min(MR, gp.m - row0);
        k_begin = min(split * gp.k_split, gp.k);
        k_end = min(k_begin + gp.k_split, gp.k);
    }
    let last = gp.m - 1u;
    let rows = Rows(a_start(min(row0, last)), a_start(min(row0 + 1u, last)),
                    a_start(min(row0 + 2u, last)), a_start(min(row0 + 3u, last)),
                    a_start(min(row0 + 4u, last)), a_start(min(row0 + 5u, last)),
                    a_start(min(row0 + 6u, last)), a_start(min(row0 + 7u, last)));
    var acc = Acc(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0),
                  vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    if (cq < quads) {
        along_k(&acc, rows, k_begin, k_end, cq, lid.y);
    }
    // Add the WK partial sums of each column, one row of A at a time.
    let out = split * gp.m * quads;
    reduce_row(acc.r0, 0u, stored, lid, row0, cq, quads, out);
    if (MR > 1u) {
        reduce_row(acc.r1, 1u, stored, lid, row0, cq, quads, out);
    }
    if (MR > 2u) {
        reduce_row(acc.r2, 2u, stored, lid, row0, cq, quads, out);
        reduce_row(acc.r3, 3u, stored, lid, row0, cq, quads, out);
    }
    if (MR > 4u) {
        reduce_row(acc.r4, 4u, stored, lid, row0, cq, quads, out);
        reduce_row(acc.r5, 5u, stored, lid, row0, cq, quads, out);
        reduce_row(acc.r6, 6u, stored, lid, row0, cq, quads, out);
        reduce_row(acc.r7, 7u, stored, lid, row0, cq, quads, out);
    }
}

// Split-K in one launch, for the matrix-vector product (M = 1, so MR = 1; N a multiple of 4):
// each workgroup stores its split's partial and counts itself in for its block; the last of a
// block's `splits` workgroups adds every partial into C and sets the count back to zero for the
// next launch (the one-pass reduction's pattern, the CUDA C++ Programming Guide's example for
// memory fences). A second launch (`sum_splits`) waits for the whole product before it begins;
// here each block is summed as soon as its splits are done. The partials and counts go through
// atomics, ordered by storage barriers (naga emits device-scope fences for them): WGSL orders
// nothing across workgroups for plain loads and stores. The sum's order is fixed (lane y adds
// splits y, y + WK, ... in order, then the lanes are added in order), so the same input gives
// the same bits whichever workgroup came last. With more rows the summing workgroup's work
// grows with them: at M = 4 and 16 this form ran 8–20% slower than the second launch on an H200,
// at M = 1 1–11% faster (BENCHMARKS.md, "The small-M kernel").
@compute @workgroup_size(WX, WK)
fn gemv_summed(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_id) lid: vec3<u32>) {
    let t = wid.x + wid.y * nwg.x;
    let split = t / gp.col_groups;
    let block = t % gp.col_groups;  // its 4·WX columns (one row: a block per column group)
    if (split >= gp.splits) {
        return;  // past the last split: not counted (uniform: the whole workgroup leaves)
    }
    let cq = block * WX + lid.x;
    let quads = gp.n / 4u;
    let k_begin = min(split * gp.k_split, gp.k);
    let k_end = min(k_begin + gp.k_split, gp.k);
    let r = a_start(0u);
    let rows = Rows(r, r, r, r, r, r, r, r);
    var acc = Acc(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0),
                  vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    if (cq < quads) {
        along_k(&acc, rows, k_begin, k_end, cq, lid.y);
    }
    // The split's partial: the WK lanes added (as `reduce_row` does), stored through atomics.
    partial[lid.y * WX + lid.x] = acc.r0;
    workgroupBarrier();
    if (lid.y == 0u && cq < quads) {
        var s = partial[lid.x];
        for (var y = 1u; y < WK; y++) {
            s += partial[y * WX + lid.x];
        }
        for (var j = 0u; j < 4u; j++) {
            atomicStore(&g_parts[4u * (split * quads + cq) + j], bitcast<u32>(s[j]));
        }
    }
    storageBarrier();  // the partial, then the count (__threadfence() in the guide)
    if (lid.x == 0u && lid.y == 0u) {
        g_counted = atomicAdd(&g_tally[block], 1u) + 1u;
    }
    if (workgroupUniformLoad(&g_counted) != gp.splits) {
        return;
    }
    storageBarrier();  // the count, then the other workgroups' partials
    var sum = vec4<f32>(0.0);
    if (cq < quads) {
        for (var s = lid.y; s < gp.splits; s += WK) {
            let at = 4u * (s * quads + cq);
            sum += vec4<f32>(bitcast<f32>(atomicLoad(&g_parts[at])),
                             bitcast<f32>(atomicLoad(&g_parts[at + 1u])),
                             bitcast<f32>(atomicLoad(&g_parts[at + 2u])),
                             bitcast<f32>(atomicLoad(&g_parts[at + 3u])));
        }
    }
    reduce_row(sum, 0u, 1u, lid, 0u, cq, quads, 0u);
    if (lid.x == 0u && lid.y == 0u) {
        atomicStore(&g_tally[block], 0u);  // ready for the next launch
    }
}
