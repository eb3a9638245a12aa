// Loops and branches on uniform values around barriers: all uniform.
var<workgroup> t: array<f32, 64>;
@group(0) @binding(0) var<storage, read_write> o: array<f32>;
struct P { n: u32 }
@group(0) @binding(1) var<uniform> p: P;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {
  var acc = 0.0;
  for (var k = 0u; k < p.n; k += 1u) {
    t[l.x] = f32(k);
    workgroupBarrier();
    if (l.x < 32u) { acc += t[l.x + 32u]; }
    workgroupBarrier();
  }
  if (w.x == 0u) { workgroupBarrier(); }
  for (var s = 32u; s > 0u; s >>= 1u) {
    if (l.x < s) { t[l.x] += t[l.x + s]; }
    workgroupBarrier();
  }
  o[l.x] = acc;
}
