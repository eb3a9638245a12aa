enable f16;
// for a while: loop {
var<workgroup> t: array<f32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    var acc = 0.0;
    for (var k = 0u; k < 8u; k++) { acc += 1.0; }
    var j = 0u;
    while j < 4u { j += 1u; }
    loop { if (j > 9u) { break; } j += 1u; continuing { j += 0u; } }
    t[i] = acc;
    workgroupBarrier();
}
fn no_loops(x: f32) -> f32 { return x * 2.0; }
