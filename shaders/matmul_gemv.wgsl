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
//   enough workgroups to fill the GPU; `sum_splits` adds the slices' partial products.
// A, B and the output have rows that are multiples of 4 elements (the host pads ragged ones with
// `pad`); their element types come from the prelude (`Elem4`, `Out4`), the arithmetic is f32.

struct GemvParams {
    m: u32,
    k: u32,           // columns of A = rows of B (a multiple of 4)
    n: u32,           // columns of B and of the output (a multiple of 4)
    col_groups: u32,  // ceil(n / (4·WX))
    row_blocks: u32,  // ceil(m / MB)
    k_split: u32,
    splits: u32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> ga4: array<Elem4>;
@group(0) @binding(1) var<storage, read> gb4: array<Elem4>;
@group(0) @binding(2) var<storage, read_write> gc4: array<Out4>;
@group(0) @binding(3) var<uniform> gp: GemvParams;

override WX: u32 = 64u;  // invocations along N (4 columns each)
override WK: u32 = 4u;   // invocations along K
override KS: u32 = 4u;   // rows of B per slice of an invocation (a multiple of 4)
override MR: u32 = 8u;   // rows of A per invocation (at most MB)
const MB: u32 = 8u;      // the accumulators' size: MR of them are used

var<workgroup> partial: array<vec4<f32>, WX * WK>;

// One group of 4 rows of B (k..k+3) times `rows` rows of A (at most MR) into `acc`.
fn group4(acc: ptr<function, array<vec4<f32>, MB>>, k: u32, cq: u32, quads: u32, row0: u32,
          rows: u32) {
    let b0 = vec4<f32>(gb4[k * quads + cq]);
    let b1 = vec4<f32>(gb4[(k + 1u) * quads + cq]);
    let b2 = vec4<f32>(gb4[(k + 2u) * quads + cq]);
    let b3 = vec4<f32>(gb4[(k + 3u) * quads + cq]);
    for (var i = 0u; i < MR; i++) {
        if (i < rows) {
            let av = vec4<f32>(ga4[((row0 + i) * gp.k + k) / 4u]);
            (*acc)[i] += av.x * b0 + av.y * b1 + av.z * b2 + av.w * b3;
        }
    }
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
    let quads = gp.n / 4u;
    // Workgroups past the last split (the 2-D fold rounds up) read nothing and store nothing.
    var rows = 0u;
    var k_begin = 0u;
    var k_end = 0u;
    if (split < gp.splits && row0 < gp.m) {
        rows = min(MR, gp.m - row0);
        k_begin = min(split * gp.k_split, gp.k);
        k_end = min(k_begin + gp.k_split, gp.k);
    }
    var acc: array<vec4<f32>, MB>;
    for (var i = 0u; i < MB; i++) {
        acc[i] = vec4<f32>(0.0);
    }
    if (cq < quads) {
        // Whole slices of KS rows: the driver unrolls the KS/4 groups (KS is a pipeline constant)
        // and may issue all their loads first.
        var k = k_begin + KS * lid.y;
        for (; k + KS <= k_end; k += KS * WK) {
            for (var g = 0u; g < KS; g += 4u) {
                group4(&acc, k + g, cq, quads, row0, rows);
            }
        }
        // The split's ragged end (fewer than KS rows, a multiple of 4): the one invocation whose
        // slice holds it stopped at its start; the others are past k_end.
        for (; k < k_end; k += 4u) {
            group4(&acc, k, cq, quads, row0, rows);
        }
    }
    // Add the WK partial sums of each column, one row of A at a time.
    let out = split * gp.m * quads;
    for (var i = 0u; i < MR; i++) {
        partial[lid.y * WX + lid.x] = acc[i];
        workgroupBarrier();
        if (lid.y == 0u && i < rows && cq < quads) {
            var s = partial[lid.x];
            for (var y = 1u; y < WK; y++) {
                s += partial[y * WX + lid.x];
            }
            gc4[out + (row0 + i) * quads + cq] = Out4(s);
        }
        workgroupBarrier();
    }
}
