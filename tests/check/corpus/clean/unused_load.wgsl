// Atomic loads whose value nobody uses read nothing as final.
@group(0) @binding(0) var<storage, read_write> bins: array<atomic<u32>, 16>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  atomicAdd(&bins[keys[gid.x] & 15u], 1u);
  let unused = atomicLoad(&bins[0]);
  _ = atomicLoad(&bins[1]);
}
