// Gather of 4-byte elements (gather.wgsl says how windows and indices work).

@group(0) @binding(2) var<storage, read> src: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn gather_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
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
