// The recycled broadcast slot in a persistent loop: each round the workgroup claims a tile
// through `wg_slot`, waits for its predecessor, then hands the predecessor's total on through
// the same variable. Within a round everything shares one barrier interval, so the slot is
// followed conservatively: the awaited word reaching the address through workgroup memory
// is not a counter the inner loop advances.
@group(0) @binding(0) var<storage, read_write> next_tile: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> tile_state: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;
@group(0) @binding(3) var<uniform> tiles: u32;
const DONE = 0x80000000u;
var<workgroup> wg_slot: u32;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  if (lid.x == 0u) { wg_slot = atomicAdd(&next_tile, 1u); }
  var tile = workgroupUniformLoad(&wg_slot);
  while (tile < tiles) {
    if (tile != 0u && lid.x == 0u) {
      var word = atomicLoad(&tile_state[tile - 1u]);
      while ((word & DONE) == 0u) { // expect: spin-wait
        word = atomicLoad(&tile_state[tile - 1u]);
      }
      wg_slot = word & ~DONE;
    }
    let before = workgroupUniformLoad(&wg_slot);
    if (lid.x == 0u) { atomicStore(&tile_state[tile], DONE | (before + 1u)); }
    totals[tile * 64u + lid.x] = before;
    workgroupBarrier();
    if (lid.x == 0u) { wg_slot = atomicAdd(&next_tile, 1u); }
    tile = workgroupUniformLoad(&wg_slot);
  }
}
