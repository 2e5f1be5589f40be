// Tile ranks for select.wgsl with subgroup scans: one barrier instead of 2 * log2(WG).
// Used only where the adapter's subgroups are consecutive invocations (probed once,
// program.consecutive_subgroups), since ranks follow the invocation order. Put before
// select.wgsl.

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(subgroup_size) sg_size: u32,
  @builtin(subgroup_invocation_id) sg_lane: u32,
}

var<workgroup> subgroup_totals: array<vec4<u32>, WG>;

// Exclusive scan of c over the invocations (per component) and the column totals.
fn tile_scan(inv: Invocation, c: vec4<u32>) -> TileScan {
  let inclusive = subgroupInclusiveAdd(c);
  let sg_index = inv.index / inv.sg_size;
  if (inv.sg_lane == inv.sg_size - 1u) {
    subgroup_totals[sg_index] = inclusive;
  }
  workgroupBarrier();
  var before = vec4<u32>(0u);
  var columns = vec4<u32>(0u);
  let subgroups = (WG + inv.sg_size - 1u) / inv.sg_size;
  for (var s = 0u; s < subgroups; s++) {
    let v = subgroup_totals[s];
    if (s < sg_index) {
      before += v;
    }
    columns += v;
  }
  return TileScan(before + inclusive - c, columns);
}
