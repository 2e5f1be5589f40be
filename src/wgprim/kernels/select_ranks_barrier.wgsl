// Tile ranks for select.wgsl with workgroup memory and barriers only (adapters without
// subgroups). Put before select.wgsl.

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}

var<workgroup> lanes: array<vec4<u32>, WG>;

// Exclusive scan of c over the invocations (per component) and the column totals.
// Kogge-Stone: log2(WG) rounds; each reads its neighbour before anyone overwrites it.
fn tile_scan(inv: Invocation, c: vec4<u32>) -> TileScan {
  let t = inv.index;
  lanes[t] = c;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = lanes[t];
    if (t >= d) {
      x += lanes[t - d];
    }
    workgroupBarrier();
    lanes[t] = x;
    workgroupBarrier();
  }
  return TileScan(lanes[t] - c, lanes[WG - 1u]);
}
