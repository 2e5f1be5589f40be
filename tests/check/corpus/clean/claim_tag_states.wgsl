// Cell tags that only move forward (an eikonal solver's update pass): a cell becomes SOURCE
// with a store, and a neighbour is claimed with `atomicExchange(&tag, ACTIVE) == OTHER`.
// No store in the dispatch sets a tag back to OTHER, so only the first exchange finds it:
// a claim, not a publication of the cell's data.
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
  atomicStore(&cells[cell].tag, SOURCE);
  let n = neighbour[cell];
  let old = atomicExchange(&cells[n].tag, ACTIVE);
  if (old == OTHER) {
    cells[n].value = cells[cell].value + 1.0;
    active_list[64u + atomicAdd(&next_slot, 1u)] = n;
  }
}
