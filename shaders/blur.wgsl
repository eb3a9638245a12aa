// Box blur of a grayscale f32 image (PMPP fig 4.1): each output pixel is the average of the valid
// pixels in the (2·BLUR_SIZE+1)² window around it. The naive kernel reads every window pixel
// from global memory: one load per add, a compute-to-global-memory-access ratio of 1.0. The tiled
// kernel stages its TILE×TILE tile plus a BLUR_SIZE halo in workgroup memory once, so each
// workgroup loads (TILE + 2·BLUR_SIZE)² pixels for TILE² outputs.

struct Params {
    width: u32,
    height: u32,
    tiles_x: u32,  // ceil(width / TILE)
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read_write> blurred: array<f32>;
@group(0) @binding(2) var<uniform> params: Params;

override TILE: u32 = 16u;
override BLUR_SIZE: u32 = 1u;
override SIDE: u32 = TILE + 2u * BLUR_SIZE;
var<workgroup> halo: array<f32, SIDE * SIDE>;

fn origin(wid: vec3<u32>, nwg: vec3<u32>) -> vec2<u32> {
    let t = wid.x + wid.y * nwg.x;
    return vec2<u32>((t % params.tiles_x) * TILE, (t / params.tiles_x) * TILE);
}

fn inside(x: i32, y: i32) -> bool {
    return x >= 0 && y >= 0 && x < i32(params.width) && y < i32(params.height);
}

@compute @workgroup_size(TILE, TILE)
fn naive(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let o = origin(wid, nwg);
    let col = i32(o.x + lid.x);
    let row = i32(o.y + lid.y);
    if (!inside(col, row)) {
        return;
    }
    let r = i32(BLUR_SIZE);
    var sum = 0.0;
    var count = 0.0;
    for (var dy = -r; dy <= r; dy++) {
        for (var dx = -r; dx <= r; dx++) {
            let y = row + dy;
            let x = col + dx;
            if (inside(x, y)) {
                sum += image[u32(y) * params.width + u32(x)];
                count += 1.0;
            }
        }
    }
    blurred[u32(row) * params.width + u32(col)] = sum / count;
}

@compute @workgroup_size(TILE, TILE)
fn tiled(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) li: u32,
         @builtin(local_invocation_id) lid: vec3<u32>) {
    let o = origin(wid, nwg);
    let r = i32(BLUR_SIZE);
    // [lesson] the lines the tour quotes
    // Stage the tile and its halo; pixels outside the image are never read back (see below).
    for (var e = li; e < SIDE * SIDE; e += TILE * TILE) {
        let x = i32(o.x) + i32(e % SIDE) - r;
        let y = i32(o.y) + i32(e / SIDE) - r;
        var v = 0.0;
        if (inside(x, y)) {
            v = image[u32(y) * params.width + u32(x)];
        }
        halo[e] = v;
    }
    workgroupBarrier();
    // [/lesson]
    let col = i32(o.x + lid.x);
    let row = i32(o.y + lid.y);
    if (inside(col, row)) {
        var sum = 0.0;
        var count = 0.0;
        for (var dy = -r; dy <= r; dy++) {
            for (var dx = -r; dx <= r; dx++) {
                if (inside(col + dx, row + dy)) {
                    sum += halo[u32(i32(lid.y) + r + dy) * SIDE + u32(i32(lid.x) + r + dx)];
                    count += 1.0;
                }
            }
        }
        blurred[u32(row) * params.width + u32(col)] = sum / count;
    }
}
