// Wide loads (The CUDA Handbook §8.1: float2/float4, 64- and 128-bit loads):
// the same copy and the same sum with one 32-bit word per load and with vec4 (128-bit) loads.
// Buffers are allocated in multiples of 16 bytes, so the last vec4 stays inside the allocation;
// the sum masks the words past n, the copy writes them into the output's padding.

struct Params {
    n: u32,       // 32-bit elements
    groups: u32,  // workgroups with work; they stride over the input
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> dst4: array<vec4<u32>>;
@group(0) @binding(4) var<uniform> params: Params;
@group(0) @binding(5) var<storage, read_write> total: atomic<u32>;

override WG: u32 = 256u;
var<workgroup> group_total: atomic<u32>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

@compute @workgroup_size(WG)
fn copy_scalar(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g < params.groups) {
        for (var i = g * WG + lid; i < params.n; i += params.groups * WG) {
            dst[i] = src[i];
        }
    }
}

@compute @workgroup_size(WG)
// [lesson] the lines the tour quotes
fn copy_vec4(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    let n4 = (params.n + 3u) / 4u;
    if (g < params.groups) {
        for (var i = g * WG + lid; i < n4; i += params.groups * WG) {
            dst4[i] = src4[i];
            // [/lesson]
        }
    }
}

// Sums wrap modulo 2^32. Each invocation sums its share, the workgroup adds the shares with a
// workgroup atomic, and one global atomicAdd per workgroup merges.
fn merge(lid: u32, g: u32, acc: u32) {
    if (lid == 0u) {
        atomicStore(&group_total, 0u);
    }
    workgroupBarrier();
    atomicAdd(&group_total, acc);
    workgroupBarrier();
    if (lid == 0u && g < params.groups) {
        atomicAdd(&total, atomicLoad(&group_total));
    }
}

@compute @workgroup_size(WG)
fn sum_scalar(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    var acc = 0u;
    if (g < params.groups) {
        for (var i = g * WG + lid; i < params.n; i += params.groups * WG) {
            acc += src[i];
        }
    }
    merge(lid, g, acc);
}

@compute @workgroup_size(WG)
fn sum_vec4(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    let n4 = (params.n + 3u) / 4u;
    var acc = 0u;
    if (g < params.groups) {
        for (var i = g * WG + lid; i < n4; i += params.groups * WG) {
            let v = src4[i];
            // Mask the padding words past n in the last vec4.
            let live = vec4<u32>(4u * i) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(params.n);
            let w = select(vec4<u32>(0u), v, live);
            acc += w.x + w.y + w.z + w.w;
        }
    }
    merge(lid, g, acc);
}
