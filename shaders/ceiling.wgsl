// The arithmetic ceiling for `tilekit bench`: eight independent FMA chains per invocation, so the
// multiply-add units, not the latency of one chain, set the pace (the host checks each
// invocation's sum against the chains computed in f64). The result is stored so that the
// compiler cannot drop the work; the multiplier comes from a uniform so it cannot fold it either.

struct Params {
    iterations: u32,
    groups: u32,
    mul_bits: u32,  // a multiplier just below 1.0, as f32 bits
    _pad: u32,
}

@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@group(0) @binding(1) var<uniform> params: Params;

override WG: u32 = 256u;

@compute @workgroup_size(WG)
fn fma_chains(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let g = wid.x + wid.y * nwg.x;
    let m = bitcast<f32>(params.mul_bits);
    let c = 1e-3;
    let s = f32(lid) * 1e-4;
    var a0 = s; var a1 = s + 0.1; var a2 = s + 0.2; var a3 = s + 0.3;
    var a4 = s + 0.4; var a5 = s + 0.5; var a6 = s + 0.6; var a7 = s + 0.7;
    // Eight steps per pass of the loop, written out: with one step per pass the loop's own
    // counter, compare and branch took three issue slots for every eight FMAs, and the ceiling
    // read 55 TFLOP/s on an H100 where its FMAs alone run 62 (BENCHMARKS.md, "The f32 kernel is held by its reads of workgroup memory").
    let passes = params.iterations / 8u;
    for (var i = 0u; i < passes; i++) {
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
    }
    for (var i = 8u * passes; i < params.iterations; i++) {
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
    }
    if (g < params.groups) {
        sink[g * WG + lid] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    }
}
