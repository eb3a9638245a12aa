// Exercise padded-transpose (check: the page's Check button, or tilekit exercise check padded-transpose FILE).
// `padded` transposes through a tile padded to TILE + 1 words per row; its read from the tile is wrong.
// Only the TODO changes; the solution is the project's own shader (tilekit exercise list says which).

// Transpose an M×N matrix (row-major) into N×M: naive, through a workgroup tile, and through
// a tile whose rows are padded by one element (The CUDA Handbook §8.1: a 32×32
// tile read by column hits one bank 32 times; 33-word rows put each element of a column in a
// different bank). Workgroups are TILE×ROWS; each invocation moves TILE/ROWS elements.
// Elements move as raw bits: this alias is `u32` for 4-byte elements (f32, i32, u32) and
// `vec2<u32>` for 8-byte ones (f64); the host builds the file once per width.
alias Elem = u32;

struct Params {
    rows: u32,     // M
    cols: u32,     // N
    tiles_x: u32,  // ceil(N / TILE)
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> input: array<Elem>;
@group(0) @binding(1) var<storage, read_write> output: array<Elem>;
@group(0) @binding(2) var<uniform> params: Params;

override TILE: u32 = 32u;
override ROWS: u32 = 8u;

var<workgroup> tile: array<Elem, TILE * TILE>;
var<workgroup> tile_padded: array<Elem, TILE * (TILE + 1u)>;

fn origin(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let t = wid.x + wid.y * nwg.x;
    return vec2<u32>((t % params.tiles_x) * TILE, (t / params.tiles_x) * TILE);  // (col, row)
}

// Reads are coalesced, writes stride by M: each invocation's write lands in another row.
@compute @workgroup_size(TILE, ROWS)
fn naive(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let o = origin(wid, nwg);
    let c = o.x + lid.x;
    for (var j = 0u; j < TILE; j += ROWS) {
        let r = o.y + lid.y + j;
        if (r < params.rows && c < params.cols) {
            output[c * params.rows + r] = input[r * params.cols + c];
        }
    }
}

// STRIDE is TILE for the plain tile and TILE + 1 for the padded one.
fn load_tile(o: vec2<u32>, lid: vec3<u32>, padded: bool) {
    let stride = select(TILE, TILE + 1u, padded);
    for (var j = 0u; j < TILE; j += ROWS) {
        let r = o.y + lid.y + j;
        let c = o.x + lid.x;
        var v = Elem();
        if (r < params.rows && c < params.cols) {
            v = input[r * params.cols + c];
        }
        if (padded) {
            tile_padded[(lid.y + j) * stride + lid.x] = v;
        } else {
            tile[(lid.y + j) * stride + lid.x] = v;
        }
    }
}

fn store_tile(o: vec2<u32>, lid: vec3<u32>, padded: bool) {
    let stride = select(TILE, TILE + 1u, padded);
    for (var j = 0u; j < TILE; j += ROWS) {
        // Output row = input column; read the tile down a column (the bank-conflict access).
        let out_r = o.x + lid.y + j;
        let out_c = o.y + lid.x;
        var v: Elem;
        if (padded) {
            // TODO (CUDA Handbook 8.1): read the padded tile down a column: the transposed element.
            v = tile_padded[(lid.y + j) * stride + lid.x];
        } else {
            v = tile[lid.x * stride + lid.y + j];
        }
        if (out_r < params.cols && out_c < params.rows) {
            output[out_r * params.rows + out_c] = v;
        }
    }
}

@compute @workgroup_size(TILE, ROWS)
fn tiled(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let o = origin(wid, nwg);
    load_tile(o, lid, false);
    workgroupBarrier();
    store_tile(o, lid, false);
}

@compute @workgroup_size(TILE, ROWS)
fn padded(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_id) lid: vec3<u32>) {
    let o = origin(wid, nwg);
    load_tile(o, lid, true);
    workgroupBarrier();
    store_tile(o, lid, true);
}
