// The small-M matmul's global loads of A where K is not a multiple of 4 (joined after
// matmul_gemv.wgsl, with one of the two files for B): a row of A then starts anywhere, so each
// vec4 is gathered from four scalar loads, zero outside the matrix (PMPP fig 4.20, element by
// element). Copying the operands into rows of 4 first would read B, write it and read it again:
// three times the traffic of the product it prepares, which reads B once (the same trade as the
// pipelined kernel's skinny products, matmul_pipelined_a_ragged.wgsl, and the same rule on the
// host: every A of up to 16 rows meets it). Each operand is read wide where its own rows allow:
// with only K ragged B's loads stay 128 bits wide, with only N ragged A's.

@group(0) @binding(0) var<storage, read> ga1: array<Elem>;

// K is not a multiple of 4 here: the last group of rows reaches past B's last
// (matmul_gemv_b_wide.wgsl masks it).
const K_RAGGED: bool = true;

// Where row `r` of A starts, in elements.
fn a_start(r: u32) -> u32 {
    return r * gp.k;
}

// Columns k..k+3 of the row of A that starts at `row`, zero past K: a row read into the next
// would multiply that row's values by B's zeros, and an infinity there would make this one NaN.
fn load_a(row: u32, k: u32) -> vec4<f32> {
    var v = vec4<f32>();
    for (var j = 0u; j < 4u; j++) {
        if (k + j < gp.k) {
            v[j] = f32(ga1[row + k + j]);
        }
    }
    return v;
}
