// The output's stores of the pipelined matmul where one slice of K writes a C whose N is not a
// multiple of 4 (joined after matmul_pipelined.wgsl and its loads): C's rows start at any
// element, so no vec4 of them can be bound as one; each vec4 of the register tile is four scalar
// stores, each up to N (`ld` is N here). Written as a padded partial product instead, the result
// took a second pass (`sum_splits`) to copy into C: on the H100, f32 in one split, 4095³ 3074
// against 2990 µs stored straight, 2048×2048×2047 402 against 394, 8191×4095×61 384 against 359
// (BENCHMARKS.md, 2026-11-26).
@group(0) @binding(2) var<storage, read_write> c1: array<Out>;

// The 4 columns from c of row r (one slice of K: `split` is 0).
fn store_c(split: u32, r: u32, c: u32, v: vec4<f32>) {
    for (var j = 0u; j < 4u; j++) {
        if (c + j < p.ld) {
            c1[r * p.ld + c + j] = Out(v[j]);
        }
    }
}
