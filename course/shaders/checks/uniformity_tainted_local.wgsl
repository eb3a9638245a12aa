// A local assigned the invocation index taints the branch that reads it: the call of sync() is divergent.
var<workgroup> t: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
fn sync() { workgroupBarrier(); }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
  var c = 0u;
  c = i;
  if (c > 3u) { sync(); }
}
