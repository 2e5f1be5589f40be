// Counts a histogram and copies the bins out in the same dispatch.
@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 256>;
@group(0) @binding(2) var<storage, read_write> out: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  atomicAdd(&bins[values[gid.x] & 255u], 1u);
  storageBarrier();
  out[li] = atomicLoad(&bins[li]); // expect: same-dispatch-read
}
