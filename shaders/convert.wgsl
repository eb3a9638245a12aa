// f32 ↔ f16 on the GPU, two elements per invocation through a 32-bit word (pack2x16float and
// unpack2x16float are core WGSL: no SHADER_F16 needed), so that a caller with f32 data can ask
// for f16 compute without a round trip through the host. A value beyond f16's range has no f16
// (WGSL leaves it indeterminate): the host API checks the data it is given.

struct ConvertParams {
    n: u32,     // elements
    _p0: u32,
    _p1: u32,
    _p2: u32,
}

@group(0) @binding(0) var<storage, read> wide: array<f32>;        // to_f16's source
@group(0) @binding(1) var<storage, read_write> halves: array<u32>; // to_f16's result, 2 per word
@group(0) @binding(2) var<uniform> cvp: ConvertParams;
@group(0) @binding(3) var<storage, read> halves_in: array<u32>;   // to_f32's source
@group(0) @binding(4) var<storage, read_write> wide_out: array<f32>;

const CONVERT_WG: u32 = 256u;

fn pair_index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.x + wid.y * nwg.x) * CONVERT_WG + lid;
}

@compute @workgroup_size(CONVERT_WG)
fn to_f16(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = pair_index(wid, nwg, lid);
    if (2u * i >= cvp.n) {
        return;
    }
    var hi = 0.0;
    if (2u * i + 1u < cvp.n) {
        hi = wide[2u * i + 1u];
    }
    halves[i] = pack2x16float(vec2<f32>(wide[2u * i], hi));
}

@compute @workgroup_size(CONVERT_WG)
fn to_f32(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = pair_index(wid, nwg, lid);
    if (2u * i >= cvp.n) {
        return;
    }
    let v = unpack2x16float(halves_in[i]);
    wide_out[2u * i] = v.x;
    if (2u * i + 1u < cvp.n) {
        wide_out[2u * i + 1u] = v.y;
    }
}
