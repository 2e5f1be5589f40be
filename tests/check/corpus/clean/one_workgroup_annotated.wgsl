// An eikonal-style update whose host dispatches it as a single workgroup, said with
// `wgprim: dispatch(1)`: the flag and the data travel between invocations of one workgroup,
// ordered by its storageBarrier(); no other workgroup reads them.
@group(0) @binding(0) var<storage, read_write> ready: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> value: array<f32>;

// wgprim: dispatch(1)
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
  value[lid] = f32(lid);
  storageBarrier();
  atomicStore(&ready[lid], 1u);
  storageBarrier();
  let j = (lid + 1u) % 64u;
  if (atomicLoad(&ready[j]) == 1u) {
    value[lid] += value[j];
  }
}
