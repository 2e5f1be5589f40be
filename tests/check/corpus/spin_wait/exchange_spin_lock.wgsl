// a spin lock built from atomicExchange: the loop waits for another workgroup to release
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  while (atomicExchange(&lock, 1u) == 1u) {}  // expect: spin-wait
  data[0] += 1u;  // expect: flag-publish
  atomicStore(&lock, 0u);
}
