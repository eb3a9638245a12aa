// A loop bounded by the invocation index, and a loop left early on a per-invocation value: two divergent barriers.
var<workgroup> t: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
  for (var k = 0u; k < i; k += 1u) {
    workgroupBarrier();
  }
  for (var k = 0u; k < 4u; k += 1u) {
    if (t[i] > 0.0) { break; }
    workgroupBarrier();
  }
}
