// The twin of clean/fallback_index_in_workgroup.wgsl whose round, when the predecessor is
// not there yet, neither ends the look-back nor moves the shared index: it waits.
const LOCKED = 1u;
const UNLOCKED = 0u;
const INCLUSIVE = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> s_lock: u32;
var<workgroup> s_back: u32;
var<workgroup> s_sum: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    s_back = wid.x;
    s_sum = 0u;
    s_lock = select(UNLOCKED, LOCKED, wid.x > 0u);
  }
  var lock = workgroupUniformLoad(&s_lock);
  while (lock == LOCKED) {  // expect: spin-wait
    if (lid == 0u) {
      var s = 0u;
      for (var spins = 0u; spins < 8u; spins++) {
        s = atomicLoad(&state[s_back - 1u]);
        if (s != 0u) { break; }
      }
      s_sum += s >> 2u;
      if ((s & 3u) == INCLUSIVE || s_back == 1u) {
        s_lock = UNLOCKED;
      } else {
        s_sum += 0u;
      }
    }
    lock = workgroupUniformLoad(&s_lock);
  }
  if (lid == 0u) { out[wid.x] = s_sum; }
}
