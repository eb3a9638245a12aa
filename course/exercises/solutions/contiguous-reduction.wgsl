// Solution of the exercise contiguous-reduction: the reduction tree with sequential addressing
// (Harris, "Optimizing Parallel Reduction in CUDA", kernel 3). At step s invocations 0 … s − 1
// add the sum s places away: whole warps are busy or idle until s < 32, and a warp's 32 reads
// fall in 32 banks.

struct Params {
    n: u32,  // values in
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;  // one sum per workgroup
@group(0) @binding(2) var<uniform> params: Params;

const WG: u32 = 256u;
var<workgroup> sums: array<f32, WG>;

@compute @workgroup_size(WG)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = wid.x * WG + lid;
    var v = 0.0;
    if (i < params.n) {
        v = input[i];
    }
    sums[lid] = v;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            sums[lid] += sums[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        output[wid.x] = sums[0];
    }
}
