// A workgroup writes its own slot and reads it straight back to pack it into its flag
// word, under a predecessor's flag: the read is of this workgroup's own write (the index is
// exactly its id, which no other workgroup's index is), not of data another workgroup
// published. Its twin that reads the predecessor's slot is flag_publish/predecessor_slot.wgsl.
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
    atomicStore(&flags[wid.x], F | out[wid.x]);
  }
}
