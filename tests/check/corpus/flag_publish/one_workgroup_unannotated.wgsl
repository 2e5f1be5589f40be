// The twin of clean/one_workgroup_annotated.wgsl without the host annotation: for all the
// checker knows other workgroups run too, and the flag publishes the data to them.
@group(0) @binding(0) var<storage, read_write> ready: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> value: array<f32>;

// (no annotation: the host may dispatch many workgroups)
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
  value[lid] = f32(lid);
  storageBarrier();
  atomicStore(&ready[lid], 1u);  // expect: flag-publish
  storageBarrier();
  let j = (lid + 1u) % 64u;
  if (atomicLoad(&ready[j]) == 1u) {
    value[lid] += value[j];  // expect: flag-publish
  }
}
