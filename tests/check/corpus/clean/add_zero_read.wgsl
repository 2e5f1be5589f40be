// atomicAdd(&x, 0u) used as a read of a count an earlier dispatch finished: it accumulates
// nothing, so reading the count with atomicLoad in the same dispatch is fine.
@group(0) @binding(0) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = atomicAdd(&count, 0u);
  if (gid.x < n) {
    out[gid.x] = atomicLoad(&count);
  }
}
