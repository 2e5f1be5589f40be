// block_exclusive_sum for the radix sort, with subgroup operations.
//
// Every invocation of the workgroup passes one u32; returns (exclusive prefix in
// invocation order, workgroup total). A subgroup scan, then each invocation adds the
// totals of the subgroups before its own. Subgroups are taken to be consecutive ranges of
// local_invocation_index (subgroup s = invocations s * size .. s * size + size - 1), as
// on every driver we know for a one-dimensional workgroup. Works for any subgroup size
// that divides WG. Must be called by the whole workgroup (it has barriers).
// Needs the device's subgroup feature (naga rejects the `enable subgroups;` directive).

var<workgroup> block_subgroup_totals: array<u32, WG>;

fn block_exclusive_sum(t: u32, v: u32) -> vec2<u32> {
  let lane_prefix = subgroupExclusiveAdd(v);
  let subgroup_total = subgroupAdd(v);
  let size = subgroupAdd(1u);
  let lane = subgroupExclusiveAdd(1u);
  let subgroup = t / size;
  if (lane == 0u) {
    block_subgroup_totals[subgroup] = subgroup_total;
  }
  workgroupBarrier();
  var before = 0u;
  var total = 0u;
  for (var s = 0u; s < WG / size; s++) {
    let x = block_subgroup_totals[s];
    before += select(0u, x, s < subgroup);
    total += x;
  }
  workgroupBarrier();  // everyone has read before the next call writes
  return vec2<u32>(before + lane_prefix, total);
}
