// The twin of clean/own_slot_read_back.wgsl: under the predecessor's flag, the workgroup
// reads the predecessor's slot, which that workgroup wrote with an ordinary write before
// setting its flag: data published by a flag.
const M = 0xffffu;
const F = 0x10000u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> words: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let word = words[wid.x];
  var prev = 0u;
  if (wid.x > 0u) { prev = atomicLoad(&flags[wid.x - 1u]); }
  if ((prev & F) != 0u) {
    out[wid.x] = word & M;
    atomicStore(&flags[wid.x], F | out[wid.x - 1u]);  // expect: flag-publish
  }
}
