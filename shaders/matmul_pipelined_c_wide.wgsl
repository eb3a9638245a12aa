// The output's stores of the pipelined matmul (joined after matmul_pipelined.wgsl and its loads):
// each vec4 of an invocation's register tile is one 128-bit store (64 for f16) into rows of `ld`
// elements, a multiple of 4: C itself where N is a multiple of 4 and K has one slice, else the
// split's own partial product (m×ld f32), which `sum_splits` adds into C.
@group(0) @binding(2) var<storage, read_write> c4: array<Out4>;

// The 4 columns from c of row r, for slice `split` of K.
fn store_c(split: u32, r: u32, c: u32, v: vec4<f32>) {
    if (c < p.ld) {
        c4[split * p.m * (p.ld / 4u) + (r * p.ld + c) / 4u] = Out4(v);
    }
}

// The workgroup's block into C, or into split `split`'s partial product: each invocation's own.
fn store_block(acc: ptr<function, array<vec4<f32>, 16>>, split: u32, row0: u32, col0: u32,
               lid: vec3<u32>) {
    store_tile(acc, split, row0, col0, lid);
}
