// The matrix units' ceiling for `tilekit bench`: what cooperative-matrix multiply-adds
// (16×16×16, f16 in, f32 accumulators) reach when nothing but the matrix units is asked of the
// GPU. Each subgroup holds the cooperative matmul's own grid (matmul_coop.wgsl: 2 fragments of A,
// 4 of B, 2×4 accumulators, eight independent products per step, so the units' throughput, not
// one product's latency, sets the pace), loads its fragments once from workgroup memory and
// multiplies them `iterations` times. The FMA ceiling (ceiling.wgsl) is its scalar twin: the
// difference between the two is what the matrix units add, and the difference between this
// ceiling and the matmul is what feeding them costs (fragment loads, barriers, global loads).
//
// Every subgroup stores its accumulators, so that the compiler can drop none of the work, and
// the host checks them: A and B hold small multiples of 1/64, so every product and every sum
// below 4096 is exact in f32, and C = iterations · A·B.

enable f16;
enable wgpu_cooperative_matrix;

struct Params {
    iterations: u32,
    groups: u32,
    scale: f32,  // 1/64, from a uniform so the compiler cannot fold the operands
    _pad: u32,
}

@group(0) @binding(0) var<storage, read_write> sink: array<f32>;  // per subgroup: 32×64 of C
@group(0) @binding(1) var<uniform> params: Params;

override SG: u32 = 32u;        // the adapter's subgroup size
override SUBGROUPS: u32 = 8u;  // subgroups per workgroup
const FRAG: u32 = 16u;

var<workgroup> a_s: array<f16, 2u * FRAG * FRAG>;  // 32×16, row-major: two fragments of A
var<workgroup> b_s: array<f16, 4u * FRAG * FRAG>;  // 16×64, row-major: four fragments of B

// The value at `e` of the operands (A's elements first, then B's): 0 to 12 sixty-fourths.
fn operand(e: u32) -> f16 {
    return f16(f32((e * 7u + 3u) % 13u) * params.scale);
}

@compute @workgroup_size(SG * SUBGROUPS)
fn matrix_chains(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) me: u32) {
    let g = wid.x + wid.y * nwg.x;
    for (var e = me; e < 2u * FRAG * FRAG; e += SG * SUBGROUPS) {
        a_s[e] = operand(e);
    }
    for (var e = me; e < 4u * FRAG * FRAG; e += SG * SUBGROUPS) {
        b_s[e] = operand(2u * FRAG * FRAG + e);
    }
    workgroupBarrier();
    let a0 = coopLoadT<coop_mat16x16<f16, A>>(&a_s[0], FRAG);
    let a1 = coopLoadT<coop_mat16x16<f16, A>>(&a_s[FRAG * FRAG], FRAG);
    let b0 = coopLoadT<coop_mat16x16<f16, B>>(&b_s[0], 4u * FRAG);
    let b1 = coopLoadT<coop_mat16x16<f16, B>>(&b_s[FRAG], 4u * FRAG);
    let b2 = coopLoadT<coop_mat16x16<f16, B>>(&b_s[2u * FRAG], 4u * FRAG);
    let b3 = coopLoadT<coop_mat16x16<f16, B>>(&b_s[3u * FRAG], 4u * FRAG);
    var c00 = coop_mat16x16<f32, C>();
    var c01 = coop_mat16x16<f32, C>();
    var c02 = coop_mat16x16<f32, C>();
    var c03 = coop_mat16x16<f32, C>();
    var c10 = coop_mat16x16<f32, C>();
    var c11 = coop_mat16x16<f32, C>();
    var c12 = coop_mat16x16<f32, C>();
    var c13 = coop_mat16x16<f32, C>();
    for (var i = 0u; i < params.iterations; i++) {
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c02 = coopMultiplyAdd(a0, b2, c02);
        c03 = coopMultiplyAdd(a0, b3, c03);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c12 = coopMultiplyAdd(a1, b2, c12);
        c13 = coopMultiplyAdd(a1, b3, c13);
    }
    if (g < params.groups) {
        // The subgroup's 32×64 block of C, row-major, 64 floats a row.
        let at = (g * SUBGROUPS + me / SG) * 2u * FRAG * 4u * FRAG;
        coopStoreT(c00, &sink[at], 4u * FRAG);
        coopStoreT(c01, &sink[at + FRAG], 4u * FRAG);
        coopStoreT(c02, &sink[at + 2u * FRAG], 4u * FRAG);
        coopStoreT(c03, &sink[at + 3u * FRAG], 4u * FRAG);
        coopStoreT(c10, &sink[at + FRAG * 4u * FRAG], 4u * FRAG);
        coopStoreT(c11, &sink[at + FRAG * 4u * FRAG + FRAG], 4u * FRAG);
        coopStoreT(c12, &sink[at + FRAG * 4u * FRAG + 2u * FRAG], 4u * FRAG);
        coopStoreT(c13, &sink[at + FRAG * 4u * FRAG + 3u * FRAG], 4u * FRAG);
    }
}
