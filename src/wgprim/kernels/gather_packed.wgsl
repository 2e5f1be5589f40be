// Gather of 1- or 2-byte elements packed in 32-bit words (gather.wgsl says how windows and
// indices work). PER is the elements per word (4 or 2), BITS their width.

override PER: u32 = 4u;

@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn gather_packed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let w = slot(wid, nwg, t);  // the output word
  let first = w * PER;
  if (w == 0xffffffffu || first >= params.n) {
    return;
  }
  let bits = 32u / PER;
  let mask = (1u << bits) - 1u;
  var word = out[w];
  var changed = false;
  for (var k = 0u; k < PER; k++) {
    let i = first + k;
    if (i < params.n) {
      let j = local_index(i);
      if (j != 0xffffffffu) {
        let element = (src[j / PER] >> ((j % PER) * bits)) & mask;
        let shift = k * bits;
        word = (word & ~(mask << shift)) | (element << shift);
        changed = true;
      }
    }
  }
  if (changed) {
    out[w] = word;
  }
}
