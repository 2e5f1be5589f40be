// The tile is claimed with atomicAdd and the walk counts the distance back from it
// (`state[tile - k]`): k runs up to the tile's index, which only the dispatch bounds.
// Each step polls the predecessor a bounded number of times (a loop of its own).
const INCLUSIVE = 2u;
const SPINS = 16u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> claims: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn poll(i: u32) -> u32 {
  var s = 0u;
  for (var n = 0u; n < SPINS; n++) {
    s = atomicLoad(&state[i]);
    if (s != 0u) { break; }
  }
  return s;
}

@compute @workgroup_size(1)
fn main() {
  let tile = atomicAdd(&claims, 1u);
  var acc = 0u;
  for (var k = 1u; k <= tile; k++) {  // expect: lookback-depth
    let s = poll(tile - k);
    acc += s >> 2u;
    if ((s & 3u) == INCLUSIVE) { break; }
  }
  atomicStore(&state[tile], (acc << 2u) | INCLUSIVE);
  out[tile] = acc;
}
