// A plain buffer copy, vec4 at a time: the bandwidth reference wgprim bench compares
// every primitive against (bytes read + bytes written per second).

override WG: u32 = 256u;

struct Params {
  vecs: u32,   // vec4s to copy
  groups: u32, // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(WG)
fn copy(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= params.groups) {
    return;
  }
  // 4 vec4s per invocation, interleaved so that each load instruction is coalesced.
  let base = group * WG * 4u + t;
  for (var k = 0u; k < 4u; k++) {
    let i = base + k * WG;
    if (i < params.vecs) {
      dst[i] = src[i];
    }
  }
}
