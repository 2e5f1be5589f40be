// A look-back with fallback: each round either sees the predecessor done, and then the loop
// itself clears the workgroup's lock word, or steps one tile back (where a real scan would
// reduce that tile itself) and clears the lock at tile 0. A round that cleared the lock
// goes around only to find its condition false: at most wid.x + 1 rounds.
@group(0) @binding(0) var<storage, read_write> progress: array<atomic<u32>>;
var<workgroup> wg_locked: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) { wg_locked = 1u; }
  var back = wid.x;
  var locked = workgroupUniformLoad(&wg_locked);
  while (locked == 1u) {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    if (lid.x == 0u && back > 0u) {
      if (atomicLoad(&progress[back - 1u]) == 2u) { wg_locked = 0u; }
    }
    locked = workgroupUniformLoad(&wg_locked);
    if (locked == 1u) {
      if (back == 0u) {
        if (lid.x == 0u) { wg_locked = 0u; }
      } else {
        back -= 1u;
      }
      locked = workgroupUniformLoad(&wg_locked);
    }
  }
  if (lid.x == 0u) { atomicStore(&progress[wid.x], 2u); }
}
