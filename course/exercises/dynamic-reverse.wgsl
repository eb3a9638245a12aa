// Exercise dynamic-reverse (check: the page's Check button, or tilekit exercise check dynamic-reverse FILE).
// `dynamic_reverse` reverses N elements (N an override constant) through workgroup memory; finish it.
// Only the TODO changes; the solution is the project's own shader (tilekit exercise list says which).

// Reverse an array through workgroup memory (Mark Harris, "Using Shared Memory in CUDA C/C++",
// NVIDIA Technical Blog, 2013). Values are moved as raw bits: the block reverse's element is this alias,
// `u32` for 4-byte elements (f32, i32, u32) and `vec2<u32>` for 8-byte ones (f64); the host builds
// the file once per width by replacing this line. The article's static and dynamic cases use u32.
alias Elem = u32;

struct Params {
    n: u32,       // elements
    groups: u32,  // workgroups with work
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> data: array<u32>;  // in place (static, dynamic)
@group(0) @binding(1) var<storage, read> input: array<Elem>;      // block reverse
@group(0) @binding(2) var<storage, read_write> output: array<Elem>;
@group(0) @binding(3) var<uniform> params: Params;

// ---- static: `__shared__ int s[64]`, one workgroup of 64, the article's exact case.
const STATIC_N: u32 = 64u;
var<workgroup> s_static: array<u32, STATIC_N>;

@compute @workgroup_size(STATIC_N)
fn static_reverse(@builtin(local_invocation_index) t: u32) {
    s_static[t] = data[t];
    // Every value must be in workgroup memory before any is read back out (a race otherwise).
    workgroupBarrier();
    data[t] = s_static[STATIC_N - 1u - t];
}

// ---- dynamic: `extern __shared__ int s[]` sized by the launch's third parameter; here an
// override constant N, set at pipeline creation from the requested size after the planner has
// checked it against the adapter's limits.
override N: u32 = 64u;
var<workgroup> s_dyn: array<u32, N>;
var<workgroup> s_block: array<Elem, N>;

@compute @workgroup_size(N)
fn dynamic_reverse(@builtin(local_invocation_index) t: u32) {
    s_dyn[t] = data[t];
    workgroupBarrier();
    data[t] = s_dyn[t];  // TODO (Harris, dynamicReverse): read the element that mirrors t.
}

// ---- block reverse of any n over many workgroups: workgroup g reads block g coalesced, reverses
// it in workgroup memory, and writes it coalesced to the mirrored position. Invocation t writes
// out[n - 1 - src] for src = g·N + (N - 1 - t), so neighbouring invocations write neighbours.
@compute @workgroup_size(N)
fn block_reverse(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
    let g = wid.x + wid.y * nwg.x;
    let i = g * N + t;
    if (g < params.groups && i < params.n) {
        s_block[t] = input[i];
    }
    workgroupBarrier();
    let src = g * N + (N - 1u - t);
    if (g < params.groups && src < params.n) {
        output[params.n - 1u - src] = s_block[N - 1u - t];
    }
}
