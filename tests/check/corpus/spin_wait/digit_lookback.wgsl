// The shape of a one-sweep radix sort's look-back: every invocation below RADIX walks back
// over its digit's packed words in `while (true)`; it publishes its own inclusive count on
// the way out (a write to the same buffer, another index, on the exit path: not progress).
const RADIX = 256u;
const NOT_READY = 0u;
const INCLUSIVE = 2u;
const MASK = 3u;
@group(0) @binding(0) var<storage, read_write> pass_hist: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> alt: array<u32>;
var<workgroup> local_hist: array<u32, RADIX>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let part = wid.x;
  let mine = 5u;
  if (lid.x < RADIX) {
    var prev = 0u;
    var back = part;
    while (true) { // expect: spin-wait
      let word = atomicLoad(&pass_hist[lid.x + back * RADIX]);
      if ((word & MASK) > NOT_READY) {
        prev += word >> 2u;
        if ((word & MASK) == INCLUSIVE) {
          atomicStore(&pass_hist[lid.x + (part + 1u) * RADIX], ((prev + mine) << 2u) | INCLUSIVE);
          local_hist[lid.x] = prev;
          break;
        } else {
          back -= 1u;
        }
      }
    }
  }
  workgroupBarrier();
  alt[part * RADIX + lid.x] = local_hist[lid.x];
}
