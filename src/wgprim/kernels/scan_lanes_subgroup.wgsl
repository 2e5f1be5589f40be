// Workgroup-wide exclusive scan of one value per invocation with subgroup shuffles:
// one barrier instead of 2 * log2(WG). Used only where the adapter has subgroups and
// its subgroups are consecutive invocations (checked once by subgroup_probe.wgsl),
// because the scan's order is the invocation order. Put before scan.wgsl.

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(subgroup_size) sg_size: u32,
  @builtin(subgroup_invocation_id) sg_lane: u32,
}

var<workgroup> subgroup_totals: array<T, WG>;

fn lanes_exclusive_scan(inv: Invocation, v: T) -> T {
  // Inclusive scan inside the subgroup (shuffles run in uniform control flow).
  var x = v;
  for (var d = 1u; d < inv.sg_size; d = d << 1u) {
    let y = subgroupShuffleUp(x, d);
    if (inv.sg_lane >= d) {
      x = combine(y, x);
    }
  }
  let left = subgroupShuffleUp(x, 1u);
  let sg_index = inv.index / inv.sg_size;
  if (inv.sg_lane == inv.sg_size - 1u) {
    subgroup_totals[sg_index] = x;
  }
  workgroupBarrier();
  // Totals of the subgroups before this one, in order (at most WG / sg_size of them).
  var before = identity();
  for (var s = 0u; s < sg_index; s++) {
    before = combine(before, subgroup_totals[s]);
  }
  if (inv.sg_lane > 0u) {
    before = combine(before, left);
  }
  return before;
}
