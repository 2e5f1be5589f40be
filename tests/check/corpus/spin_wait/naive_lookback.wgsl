// A lookback that retries forever while the predecessor is not ready: no fallback.
const NOT_READY = 0u;
const PREFIX = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (li == 0u && wid.x > 0u) {
    var look = wid.x - 1u;
    var acc = 0u;
    loop { // expect: spin-wait
      let s = atomicLoad(&state[look]);
      if ((s & 3u) == NOT_READY) { continue; }
      acc += s >> 2u;
      if ((s & 3u) == PREFIX || look == 0u) { break; }
      look -= 1u;
    }
    atomicStore(&state[wid.x], (acc << 2u) | PREFIX);
  }
}
