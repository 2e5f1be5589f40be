// `data[gid.x + 1u]`: the last invocation of each workgroup reads the first element of the
// next workgroup's slice after the barrier.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  data[gid.x] = f32(gid.x);
  workgroupBarrier();  // expect: global-barrier
  out[gid.x] = data[gid.x + 1u] - data[gid.x];
}
