// A one-sweep look-back that publishes with atomicAdd: each tile adds its aggregate into
// the next tile's (zeroed) slot and then waits for its own slot to be filled by the
// tile before it. The add goes to a slot of the tile it claimed, not to one counter
// every workgroup arrives at: this is a wait for another workgroup (spin-wait), not a
// hand-made global barrier.
@group(0) @binding(0) var<storage, read_write> tiles: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> pass_hist: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
var<workgroup> claimed: u32;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    claimed = atomicAdd(&tiles, 1u);
  }
  let tile = workgroupUniformLoad(&claimed);
  let mine = li + 1u;
  atomicAdd(&pass_hist[(tile + 1u) * 256u + li], 1u | (mine << 2u));
  var k = tile;
  var done = false;
  var sum = 0u;
  loop { // expect: spin-wait
    if (done) { break; }
    let word = atomicLoad(&pass_hist[k * 256u + li]);
    if ((word & 3u) == 2u) {
      sum += word >> 2u;
      done = true;
    } else if ((word & 3u) == 1u) {
      sum += word >> 2u;
      if (k == 0u) { done = true; } else { k -= 1u; }
    }
  }
  out[tile * 256u + li] = sum;
}
