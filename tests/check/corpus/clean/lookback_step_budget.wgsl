// A walk back from the workgroup's tile that stops after MAX_STEPS steps: `steps` is never
// reset and every way around the loop advances it, so the loop runs at most MAX_STEPS
// rounds, however many tiles the dispatch has.
override MAX_STEPS: u32 = 64u;
const INCLUSIVE = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  var acc = 0u;
  var back = wid.x;
  var steps = 0u;
  loop {
    if (back == 0u || steps == MAX_STEPS) { break; }
    let s = atomicLoad(&state[back - 1u]);
    acc += s >> 2u;
    if ((s & 3u) == INCLUSIVE) { break; }
    back -= 1u;
    steps += 1u;
  }
  out[wid.x] = acc;
}
