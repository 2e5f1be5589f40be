// A stage that stops early when an earlier stage set a failure bit. The only write of those
// bits here ORs back the bits it has just read (passing the failure on), on the path that
// returns: no workgroup can set them in this dispatch, so the guard publishes nothing and
// the reads of `cells` after it are not guarded by a 'ready' flag.
@group(0) @binding(0) var<storage, read_write> failures: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> cells: array<u32>;
@group(0) @binding(2) var<storage, read> cell_of: array<u32>;
const EARLIER_STAGES = 3u;
const THIS_STAGE = 4u;
var<workgroup> wg_failed: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  if (lid.x == 0u) { wg_failed = atomicLoad(&failures) & EARLIER_STAGES; }
  let failed = workgroupUniformLoad(&wg_failed);
  if (failed != 0u) {
    if (wid.x == 0u && lid.x == 0u) { atomicOr(&failures, failed); }
    return;
  }
  let c = cell_of[wid.x * 64u + lid.x];
  let before = cells[c];
  if (before == 0xffffffffu) { atomicOr(&failures, THIS_STAGE); }
  cells[c] = before + 1u;
}
