// An early return before a barrier: divergent.
var<workgroup> t: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x >= arrayLength(&o)) { return; }
  t[g.x % 64u] = 1.0;
  workgroupBarrier();
  o[g.x] = t[0];
}
