// A one-sweep radix pass's look-back, reduced: each round walks back while predecessors
// have published, then the workgroup counts the digits of the highest unpublished tile
// itself (a loop over its keys). The rounds are bounded by `round <= group`, the walk by
// `next == 0u`: both by the tile's index, so by the dispatch. Reported once, at the
// outermost loop.
const RADIX = 256u;
const ITEMS = 16u;
const FLAG_INCLUSIVE = 0x80000000u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
var<workgroup> fallback: array<atomic<u32>, RADIX>;
var<workgroup> stuck_tile: atomic<u32>;
var<workgroup> worst_tile: u32;

fn count_tile(t: u32, tile: u32) {
  for (var k = 0u; k < ITEMS; k++) {
    atomicAdd(&fallback[keys[(tile * ITEMS + k) * RADIX + t] & 255u], 1u);
  }
  workgroupBarrier();
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let group = wid.x;
  var exclusive = 0u;
  var open = group > 0u;
  var next = group;
  for (var round = 0u; round <= group; round++) {  // expect: lookback-depth
    var stuck = 0u;
    loop {
      if (!open || next == 0u) { break; }
      let s = atomicLoad(&state[(next - 1u) * RADIX + t]);
      if (s == 0u) { stuck = next; break; }
      exclusive += s & 0xffffu;
      next -= 1u;
      if ((s & FLAG_INCLUSIVE) != 0u) { open = false; }
    }
    if (stuck != 0u) { atomicMax(&stuck_tile, stuck); }
    workgroupBarrier();
    if (t == 0u) { worst_tile = atomicLoad(&stuck_tile); }
    let worst = workgroupUniformLoad(&worst_tile);
    if (worst == 0u) { break; }
    count_tile(t, worst - 1u);
    if (stuck == worst) {
      exclusive += atomicLoad(&fallback[t]);
      next -= 1u;
    }
    workgroupBarrier();
  }
  atomicStore(&state[group * RADIX + t], FLAG_INCLUSIVE | exclusive);
}
