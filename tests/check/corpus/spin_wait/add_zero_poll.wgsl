// atomicAdd of zero is a read: polling with it changes nothing, so it is a wait.
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  if (wid.x == 0u) {
    atomicStore(&flag, 1u);
  } else {
    while (atomicAdd(&flag, 0u) == 0u) {} // expect: spin-wait
  }
}
