// Solution of the exercise halo-stencil: a 1-D stencil of radius R through workgroup memory,
// each workgroup loading its WG inputs and the R halo cells either side (PMPP ch. 7), so that
// each input is read from global memory about once instead of 2R + 1 times.

struct Params {
    n: u32,  // elements
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

const WG: u32 = 64u;
const R: u32 = 2u;  // the stencil's radius: 2R + 1 = 5 cells
// cells[R + t] holds input[block + t]; cells[0 .. R) and cells[R + WG .. WG + 2R) are the halo.
var<workgroup> cells: array<f32, WG + 2u * R>;

// input[j], or 0.0 outside the array.
fn load(j: i32) -> f32 {
    if (j < 0 || j >= i32(params.n)) {
        return 0.0;
    }
    return input[u32(j)];
}

@compute @workgroup_size(WG)
fn stencil(@builtin(workgroup_id) wid: vec3<u32>,
           @builtin(local_invocation_index) t: u32) {
    let block = i32(wid.x * WG);
    cells[R + t] = load(block + i32(t));
    if (t < R) {
        cells[t] = load(block - i32(R) + i32(t));
        cells[R + WG + t] = load(block + i32(WG) + i32(t));
    }
    workgroupBarrier();
    let i = wid.x * WG + t;
    if (i < params.n) {
        var acc = 0.0;
        for (var k = 0u; k <= 2u * R; k++) {
            acc += cells[t + k];
        }
        output[i] = acc;
    }
}
