// Solution of the exercise conflict-free-transpose: the transpose through a 32×32 workgroup tile
// whose rows are padded to 33 words, so that a read down a column meets 32 different banks (The
// CUDA Handbook §8.1; shaders/transpose.wgsl is the library's version).

struct Params {
    rows: u32,  // M
    cols: u32,  // N
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;

const TILE: u32 = 32u;
const ROWS: u32 = 8u;  // workgroups are TILE×ROWS; each invocation moves TILE / ROWS elements
// One word of padding per row: element (r, c) of a column lands in bank (r·33 + c) mod 32, a
// different bank for each r.
const STRIDE: u32 = TILE + 1u;
var<workgroup> tile: array<u32, TILE * STRIDE>;

@compute @workgroup_size(TILE, ROWS)
fn transpose(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(local_invocation_id) lid: vec3<u32>) {
    let ox = wid.x * TILE;  // the tile's first column in the input
    let oy = wid.y * TILE;  // its first row
    for (var j = 0u; j < TILE; j += ROWS) {
        let r = oy + lid.y + j;
        let c = ox + lid.x;
        var v = 0u;
        if (r < params.rows && c < params.cols) {
            v = input[r * params.cols + c];
        }
        tile[(lid.y + j) * STRIDE + lid.x] = v;  // by rows: 32 neighbouring words, 32 banks
    }
    workgroupBarrier();
    for (var j = 0u; j < TILE; j += ROWS) {
        // Output row = input column: read the tile down a column.
        let out_r = ox + lid.y + j;
        let out_c = oy + lid.x;
        let v = tile[lid.x * STRIDE + lid.y + j];
        if (out_r < params.cols && out_c < params.rows) {
            output[out_r * params.rows + out_c] = v;
        }
    }
}
