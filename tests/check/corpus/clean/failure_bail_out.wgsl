// A stage that gives up when an earlier dispatch recorded a failure: the guard is an atomic
// read of a word this dispatch never sets (or only sets in other bits), so the storage it
// then reads and writes is not published through it.
const EARLIER = 3u;
const THIS_STAGE = 4u;
@group(0) @binding(0) var<storage, read_write> failed: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> status: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> cells: array<u32>;
var<workgroup> bail: u32;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (li == 0u) { bail = atomicLoad(&failed) & EARLIER; }
  if (workgroupUniformLoad(&bail) != 0u) { return; }
  if (atomicLoad(&status) != 0u) { return; }
  let v = cells[gid.x];
  cells[gid.x] = v * 2u;
  if (v > 1000u) { atomicOr(&failed, THIS_STAGE); }
}
