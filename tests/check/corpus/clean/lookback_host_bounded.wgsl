// A look-back whose fallback runs no loop (a predecessor's tile is one vec4), dispatched
// by its host in chunks of at most CHUNK tiles, each seeded by the previous chunk's carry:
// the walk never goes past the chunk's first tile. The checker cannot see the host's
// bound, so the comment before the loop says it.
const NOT_READY = 0u;
const INCLUSIVE = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> carry: array<u32>;

fn reduce_tile(tile: u32) -> u32 {
  let v = input[tile];
  return v.x + v.y + v.z + v.w;
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let mine = reduce_tile(wid.x);
  atomicStore(&state[wid.x], (mine << 2u) | 1u);
  var acc = carry[0];
  var back = wid.x;
  // wgprim: allow(lookback-depth) -- the host dispatches at most CHUNK tiles, each chunk seeded by the last one's carry
  while (back > 0u) {
    let s = atomicLoad(&state[back - 1u]);
    if ((s & 3u) == NOT_READY) {
      acc += reduce_tile(back - 1u);
    } else {
      acc += s >> 2u;
      if ((s & 3u) == INCLUSIVE) { break; }
    }
    back -= 1u;
  }
  atomicStore(&state[wid.x], ((acc + mine) << 2u) | INCLUSIVE);
  out[wid.x] = acc;
}
