// Exercise conflict-free-transpose (tilekit exercise check conflict-free-transpose FILE.wgsl, or
// the page's Exercises tab). The transpose through a 32×32 workgroup tile is right, but its read
// down a column of the tile sends all 32 invocations of a request to one bank: 32 passes where one
// would do (The CUDA Handbook §8.1). The check traces your kernel and counts the passes: make every
// request conflict-free. Padding each row by a word is the lesson's way; any other is fine.

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
const STRIDE: u32 = TILE;  // TODO (CUDA Handbook 8.1): words from one row of the tile to the next
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
