// The small-M matmul's global loads of B where N is a multiple of 4 (joined after
// matmul_gemv.wgsl, with one of the two files for A): each vec4 is one 128-bit load (64 for f16).

@group(0) @binding(1) var<storage, read> gb4: array<Elem4>;

// Row k of B at the 4 columns of `cq`; with a ragged K (`K_RAGGED`, from the file for A), zero
// past K, where the last group of 4 rows reaches up to 3 rows beyond B's last. With K a multiple
// of 4 the test is a constant false and compiled out: the core's loop is left as it was. Taking
// B's loads out of `group4` instead, masked only at K's end, made the aligned kernel slower on
// the H100 (f16 16×4096×4096 42 µs against 30, BENCHMARKS.md, "The small-M kernel"): the driver's schedule
// follows how the loop is written.
fn load_b(k: u32, cq: u32) -> vec4<f32> {
    if (K_RAGGED && k >= gp.k) {
        return vec4<f32>();
    }
    return vec4<f32>(gb4[k * (gp.n / 4u) + cq]);
}
