// Invocation 0 counts arrivals in workgroup memory and the others spin until the count is
// complete: the invocations of one workgroup wait for each other without a barrier. That is
// a spin-wait, not a barrier between workgroups.
var<workgroup> arrived: atomic<u32>;
var<workgroup> go: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  if (li == 0u) {
    for (var i = 1u; i < 64u; i++) {
      atomicAdd(&arrived, 1u);
    }
    atomicStore(&go, 1u);
  }
  while (atomicLoad(&arrived) < 63u) {} // expect: spin-wait
  while (atomicLoad(&go) == 0u) {} // expect: spin-wait
  out[wid.x * 64u + li] = li;
}
