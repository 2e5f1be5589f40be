// A stage that gathers the failures it must stop for in a variable: the earlier stages'
// bits read from the word, and a bit of its own when a size it reads is over its budget.
// It passes them on with one atomicOr and returns. The bits read were already set, and
// its own bit is one the guard masks out: nothing this dispatch sets is what the guard
// tests, so the reads of `cells` after it are guarded by no 'ready' flag.
@group(0) @binding(0) var<storage, read_write> failures: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> cells: array<u32>;
@group(0) @binding(2) var<storage, read> cell_of: array<u32>;
@group(0) @binding(3) var<storage, read_write> sizes: array<atomic<u32>, 2>;
const EARLIER_STAGES = 3u;
const SIZE_OVER = 8u;
const THIS_STAGE = 4u;
var<workgroup> wg_shared: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) {
    var failed = atomicLoad(&failures) & EARLIER_STAGES;
    if (atomicLoad(&sizes[0]) > atomicLoad(&sizes[1])) {
      failed |= SIZE_OVER;
    }
    wg_shared[0] = u32(failed);  // the slot is reused for the cells below
  }
  let failed = workgroupUniformLoad(&wg_shared[0]);
  if (failed != 0u) {
    if (wid.x == 0u && lid.x == 0u) { atomicOr(&failures, failed); }
    return;
  }
  let c = cell_of[wid.x * 64u + lid.x];
  wg_shared[lid.x] = c;
  workgroupBarrier();
  let before = cells[wg_shared[63u - lid.x]];
  if (before == 0xffffffffu) { atomicOr(&failures, THIS_STAGE); }
  cells[c] = before + 1u;
}
