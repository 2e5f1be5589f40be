// Zeroes the tile states of a single-pass chained scan (chained_lookback.wgsl) before the
// dispatch that uses them: every state word starts NOT READY. One vec4 (four state words:
// a tile's, or a quarter of a 64-bit scan's tile's eight) per invocation.

override WG: u32 = 256u;

struct Params {
  tiles: u32,   // vec4s of state words to zero
  groups: u32,  // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> states: array<vec4<u32>>;

@compute @workgroup_size(WG)
fn chained_reset(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let i = (wid.x + wid.y * nwg.x) * WG + t;
  if (i < params.tiles) {
    states[i] = vec4<u32>(0u);
  }
}
