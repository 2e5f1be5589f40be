// Block scan, subgroup path: the functions of block_scan_barrier.wgsl (read its header for
// the binding they need) with subgroup operations: one barrier instead of 2 * log2(WG).
// Used only where the adapter's subgroups are runs of consecutive invocations (probed
// once per device, program.consecutive_subgroups), because the scan's order is the
// invocation order: subgroup s holds invocations s * size .. s * size + size - 1.
// Needs the device's subgroup feature (naga rejects the `enable subgroups;` directive).

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(subgroup_size) sg_size: u32,
  @builtin(subgroup_invocation_id) sg_lane: u32,
}

struct BlockScan {
  before: BlockT,  // combination of the values of the invocations before this one
  total: BlockT,   // combination of every invocation's value
}

var<workgroup> block_subgroup_totals: array<BlockT, WG>;

// Inclusive scan inside the subgroup: the hardware's for sums, else shuffles (which keep
// the order of a non-commutative block_combine). Uniform control flow.
fn block_subgroup_inclusive(inv: Invocation, v: BlockT) -> BlockT {
  if (BLOCK_SUM) {
    return subgroupInclusiveAdd(v);
  }
  var x = v;
  for (var d = 1u; d < inv.sg_size; d = d << 1u) {
    let y = subgroupShuffleUp(x, d);
    if (inv.sg_lane >= d) {
      x = block_combine(y, x);
    }
  }
  return x;
}

// Combination, in order, of the totals of subgroups first .. end - 1.
fn block_subgroups_between(first: u32, end: u32) -> BlockT {
  var acc = block_identity();
  for (var s = first; s < end; s++) {
    acc = block_combine(acc, block_subgroup_totals[s]);
  }
  return acc;
}

// Scans inside each subgroup and publishes the subgroups' totals; returns the previous
// lane's inclusive value (meaningful for lanes > 0): for a sum, this lane's minus its own.
fn block_subgroup_pass(inv: Invocation, v: BlockT) -> BlockT {
  let x = block_subgroup_inclusive(inv, v);
  var left = x - v;
  if (!BLOCK_SUM) {
    left = subgroupShuffleUp(x, 1u);
  }
  if (inv.sg_lane == inv.sg_size - 1u) {
    block_subgroup_totals[inv.index / inv.sg_size] = x;
  }
  workgroupBarrier();
  return left;
}

// Prefix of the subgroups before this one, then of the lanes before this one.
fn block_prefix(inv: Invocation, before_subgroup: BlockT, left: BlockT) -> BlockT {
  if (inv.sg_lane > 0u) {
    return block_combine(before_subgroup, left);
  }
  return before_subgroup;
}

// The exclusive prefix of v: the combination of the values of invocations 0 .. index - 1.
fn block_exclusive_scan(inv: Invocation, v: BlockT) -> BlockT {
  let left = block_subgroup_pass(inv, v);
  let before = block_subgroups_between(0u, inv.index / inv.sg_size);
  return block_prefix(inv, before, left);
}

// The exclusive prefix and the workgroup's total.
fn block_exclusive_scan_total(inv: Invocation, v: BlockT) -> BlockScan {
  let left = block_subgroup_pass(inv, v);
  let sg_index = inv.index / inv.sg_size;
  let before = block_subgroups_between(0u, sg_index);
  let total = block_combine(before, block_subgroups_between(sg_index, (WG + inv.sg_size - 1u) / inv.sg_size));
  return BlockScan(block_prefix(inv, before, left), total);
}
