// Fill a buffer, one u32 word per invocation: the poison that every test writes into an output
// before a run (so a word the kernel forgot to write cannot pass), and `iota`, which proves that a
// launch folded into 2-D (src/dispatch.rs) reaches every element.

struct Params {
    n: u32,      // words to write
    value: u32,  // the poison pattern, or iota's first value
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> words: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

override WG: u32 = 256u;

// Launches over max_compute_workgroups_per_dimension are folded into rows of workgroups: the
// linear workgroup index is x + y * (grid width). Workgroups past the end have nothing to do.
fn word_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * nwg.x) * WG + lid;
}

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = word_index(wid, nwg, lid);
    if (i < params.n) {
        words[i] = params.value;
    }
}

@compute @workgroup_size(WG)
fn iota(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = word_index(wid, nwg, lid);
    if (i < params.n) {
        words[i] = params.value + i;
    }
}
