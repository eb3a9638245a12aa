// Exercise contiguous-reduction (tilekit exercise check contiguous-reduction FILE.wgsl, or the
// page's Exercises tab). This reduction tree is right, but its active invocations are every
// second, fourth, eighth one…: each group of 32 invocations that runs together (a warp) keeps
// only a few of them busy at every step while the rest wait (Harris, "Optimizing Parallel
// Reduction in CUDA", kernel 1). The check traces your kernel and counts the steps at which a
// warp was only partly busy: make the active invocations contiguous, invocations 0 … s − 1
// adding the sum s places away, s halving (kernel 3, sequential addressing).

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
    // TODO (Harris, kernel 3): the same sum with invocations lid < s active, s = WG / 2, …, 1.
    for (var s = 1u; s < WG; s *= 2u) {
        if (lid % (2u * s) == 0u) {
            sums[lid] += sums[lid + s];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        output[wid.x] = sums[0];
    }
}
