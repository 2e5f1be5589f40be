// A look-back with decoupled fallback whose walk goes as far back as tile 0: tile t may
// step back over t predecessors, and each step whose predecessor has published nothing
// reduces that tile with a loop. On a driver that caps an invocation's loop iterations
// (llvmpipe: 65,535 in all) the last tiles of a large dispatch have their loops cut.
const NOT_READY = 0u;
const AGGREGATE = 1u;
const INCLUSIVE = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn reduce_tile(tile: u32) -> u32 {
  var s = 0u;
  for (var i = 0u; i < 256u; i++) { s += input[tile * 256u + i]; }
  return s;
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let mine = reduce_tile(wid.x);
  atomicStore(&state[wid.x], (mine << 2u) | AGGREGATE);
  var acc = 0u;
  var back = wid.x;
  while (back > 0u) {  // expect: lookback-depth
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
