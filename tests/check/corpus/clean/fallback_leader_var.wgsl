// A look-back with fallback, done by one invocation that a `var` made in the loop picks.
// Each round the leader spins a bounded number of times (stepping back over partial
// tiles); if that did not find a finished tile, it steps back one tile itself (where a
// real scan reduces that tile) and clears the lock at tile 0. Every round moves `back`
// toward 0 or clears the lock: bounded for every invocation. (With `let leader` it is silent.)
@group(0) @binding(0) var<storage, read_write> status: array<atomic<u32>>;
const PARTIAL = 1u;
const DONE = 2u;
var<workgroup> wg_locked: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) { wg_locked = select(1u, 0u, wid.x == 0u); }
  var back = wid.x;
  var locked = workgroupUniformLoad(&wg_locked);
  while (locked == 1u) {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    var leader = lid.x == 0u;
    if (leader) {
      var spins = 0u;
      while (spins < 8u) {
        let s = atomicLoad(&status[back - 1u]);
        if (s == DONE) { wg_locked = 0u; break; }
        if (s == PARTIAL && back > 1u) { back -= 1u; spins = 0u; } else { spins += 1u; }
      }
    }
    locked = workgroupUniformLoad(&wg_locked);
    if (locked == 1u) {
      if (leader) {
        back -= 1u;
        if (back == 0u) { wg_locked = 0u; }
      }
      locked = workgroupUniformLoad(&wg_locked);
    }
  }
  if (lid.x == 0u) { atomicStore(&status[wid.x], DONE); }
}
