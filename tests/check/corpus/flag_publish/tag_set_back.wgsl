// The twin of clean/claim_tag_states.wgsl where a pass sets tags back to OTHER after
// writing the value: the next exchange that finds OTHER reads data released through the tag.
const OTHER = 0u;
const SOURCE = 1u;
const ACTIVE = 2u;
struct Cell { tag: atomic<u32>, value: f32 }
@group(0) @binding(0) var<storage, read_write> cells: array<Cell>;
@group(0) @binding(1) var<storage, read_write> active_list: array<u32>;
@group(0) @binding(2) var<storage, read> neighbour: array<u32>;
var<workgroup> next_slot: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let cell = active_list[gid.x];
  cells[cell].value = 0.0;
  atomicStore(&cells[cell].tag, OTHER);  // expect: flag-publish
  let n = neighbour[cell];
  let old = atomicExchange(&cells[n].tag, ACTIVE);  // expect: flag-publish
  if (old == OTHER) {
    cells[n].value = cells[cell].value + 1.0;  // expect: flag-publish
    active_list[64u + atomicAdd(&next_slot, 1u)] = n;
  }
}
