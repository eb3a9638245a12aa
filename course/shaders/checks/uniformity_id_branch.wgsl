// A barrier under a branch on the invocation id: divergent (the barrier is on line 8).
var<workgroup> t: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) l: vec3<u32>) {
  let tx = l.x;
  if (tx == 0u) {
    workgroupBarrier();
  }
  o[tx] = t[tx];
}
