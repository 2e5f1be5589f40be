// Gather of 4- or 8-byte elements (gather.wgsl says how windows and indices work). The
// preamble names the element: `alias Element = u32;` or `vec2<u32>` (8 bytes).

@group(0) @binding(2) var<storage, read> src: array<Element>;
@group(0) @binding(3) var<storage, read_write> out: array<Element>;

@compute @workgroup_size(WG)
fn gather_elements(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let i = slot(wid, nwg, t);
  if (i >= params.n) {
    return;
  }
  let j = local_index(i);
  if (j != 0xffffffffu) {
    out[i] = src[j];
  }
}
