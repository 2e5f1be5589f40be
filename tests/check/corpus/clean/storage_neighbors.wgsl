// storageBarrier used for what it does: order this workgroup's own storage accesses.
@group(0) @binding(0) var<storage, read_write> buf: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  buf[gid.x] = gid.x * 2u;
  storageBarrier();
  let neighbor = buf[gid.x ^ 1u];
  storageBarrier();
  buf[gid.x] = neighbor;
}
