// Count in one entry point, read the count in another: two dispatches.
@group(0) @binding(0) var<storage, read> xs: array<u32>;
@group(0) @binding(1) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> result: array<u32>;

@compute @workgroup_size(64)
fn count(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (xs[gid.x] != 0u) {
    atomicAdd(&counter, 1u);
  }
}

@compute @workgroup_size(1)
fn finish() {
  result[0] = atomicLoad(&counter);
  atomicStore(&counter, 0u);
}
