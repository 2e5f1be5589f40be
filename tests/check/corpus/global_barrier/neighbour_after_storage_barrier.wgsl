// Each invocation writes its own element, then reads the element 64 further on after a
// storageBarrier(): at a workgroup size of 64 that is the next workgroup's element, and
// storageBarrier() waits for no other workgroup.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  data[gid.x] = f32(gid.x) * 2.0;
  storageBarrier();  // expect: global-barrier
  out[gid.x] = data[(gid.x + 64u) % arrayLength(&data)];
}
