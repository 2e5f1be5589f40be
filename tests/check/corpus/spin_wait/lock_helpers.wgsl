// the same ticket lock through helper functions: the findings must follow the calls
@group(0) @binding(0) var<storage, read_write> now_serving: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> next_ticket: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> count: u32;
fn lock() -> u32 {
  let my = atomicAdd(&next_ticket, 1u);
  loop { if (atomicLoad(&now_serving) == my) { break; } }  // expect: spin-wait
  return my;
}
fn unlock(my: u32) { atomicStore(&now_serving, my + 1u); }
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let my = lock();
  count = count + 1u;  // expect: flag-publish
  unlock(my);
}
