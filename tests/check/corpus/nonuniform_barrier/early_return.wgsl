// Invocations past the end leave early; the barrier after it is non-uniform.
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
var<workgroup> shared_data: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (gid.x >= params.n) {
    return;
  }
  shared_data[li] = data[gid.x];
  workgroupBarrier(); // expect: nonuniform-barrier
  data[gid.x] = shared_data[63u - li];
}
