// A decoupled-fallback look-back whose index lives in workgroup memory: invocation 0 polls
// the predecessor a bounded number of times; then, whatever it saw, the round either ends
// the look-back (clears the lock) or moves the shared index back by one (a fallback on that
// tile). Every round finishes or moves `s_back` toward 0, where the lock is cleared.
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
  while (lock == LOCKED) {  // expect: lookback-depth (bounded, but as deep as the dispatch)
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
        s_back -= 1u;
      }
    }
    lock = workgroupUniformLoad(&s_lock);
  }
  if (lid == 0u) { out[wid.x] = s_sum; }
}
