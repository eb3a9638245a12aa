// Exercise histogram (check: the page's Check button, or tilekit exercise check histogram FILE).
// `workgroup_atomics` counts bytes into 256 bins in workgroup memory, then merges them into the global bins.
// Only the TODO changes; the solution is the project's own shader (tilekit exercise list says which).

// A 256-bin histogram (The CUDA Handbook §8.1: shared-memory atomics). The
// workgroup version counts into `array<atomic<u32>, 256>` in workgroup memory and merges with one
// global atomicAdd per non-empty bin per workgroup; the global version sends every value's
// atomicAdd to global memory, where all workgroups contend for the same 256 words.
// Values are u8 (packed four per word, little-endian) or u32 (binned by their low byte).

struct Params {
    n: u32,       // values
    groups: u32,  // workgroups with work; they stride over the input
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 256>;
@group(0) @binding(2) var<uniform> params: Params;

override WG: u32 = 256u;
override PACKED: bool = true;  // u8 data, four values per word

var<workgroup> local_bins: array<atomic<u32>, 256>;

fn bin_of(v: u32) -> u32 {
    if (PACKED) {
        return (input[v / 4u] >> ((v % 4u) * 8u)) & 0xffu;
    }
    return input[v] & 0xffu;
}

@compute @workgroup_size(WG)
fn workgroup_atomics(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    // Workgroup memory is not zeroed for us (tilekit turns that off): clear the bins first.
    for (var b = lid; b < 256u; b += WG) {
        atomicStore(&local_bins[b], 0u);
    }
    workgroupBarrier();
    if (g < params.groups) {
        for (var v = g * WG + lid; v < params.n; v += params.groups * WG) {
            atomicAdd(&local_bins[bin_of(v)], 1u);
        }
    }
    workgroupBarrier();
    for (var b = lid; b < 256u; b += WG) {
        let count = atomicLoad(&local_bins[b]);
        if (count > 0u) {
            atomicStore(&bins[b], count);  // TODO (CUDA Handbook 8.1): every workgroup adds its counts.
        }
    }
}

@compute @workgroup_size(WG)
fn global_atomics(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    if (g < params.groups) {
        for (var v = g * WG + lid; v < params.n; v += params.groups * WG) {
            atomicAdd(&bins[bin_of(v)], 1u);
        }
    }
}
