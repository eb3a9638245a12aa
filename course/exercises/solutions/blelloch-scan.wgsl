// Solution of the exercise blelloch-scan: the work-efficient exclusive scan (Blelloch 1990;
// GPU Gems 3, ch. 39) of blocks of N = 2·WG values, a workgroupBarrier() before every level of
// the tree.

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;  // exclusive sums per block

const WG: u32 = 64u;
const N: u32 = 2u * WG;
var<workgroup> temp: array<u32, N>;

@compute @workgroup_size(WG)
fn scan(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let base = wid.x * N;
    temp[2u * t] = input[base + 2u * t];
    temp[2u * t + 1u] = input[base + 2u * t + 1u];
    // Up-sweep: after the level of step `offset`, temp[k·2·offset − 1] holds the sum of its
    // 2·offset values.
    var offset = 1u;
    for (var d = N >> 1u; d > 0u; d >>= 1u) {
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            temp[bi] += temp[ai];
        }
        offset *= 2u;
    }
    if (t == 0u) {
        temp[N - 1u] = 0u;  // the root: an exclusive scan starts at 0
    }
    // Down-sweep: each node passes its value to its left child and value + left to its right.
    for (var d = 1u; d < N; d *= 2u) {
        offset >>= 1u;
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            let left = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += left;
        }
    }
    // No barrier needed here: at the last level invocation t itself wrote temp[2t] and
    // temp[2t + 1], the two words it reads out (GPU Gems 3 has one; the tracer finds no race
    // without it).
    output[base + 2u * t] = temp[2u * t];
    output[base + 2u * t + 1u] = temp[2u * t + 1u];
}
