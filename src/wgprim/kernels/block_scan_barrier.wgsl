// Block scan, barrier path: a workgroup-wide scan of one value per invocation, in
// invocation order, with workgroup memory and barriers only (adapters without subgroups,
// or whose subgroups are not runs of consecutive invocations). block_scan_subgroup.wgsl
// has the same functions; ops/block_scan.py picks one per device and puts it, after the
// binding of the element type, in a kernel's preamble:
//   alias BlockT                              the scanned type
//   fn block_identity() -> BlockT             identity of block_combine
//   fn block_combine(a: BlockT, b: BlockT) -> BlockT   associative (need not commute)
//   const BLOCK_SUM: bool                     block_combine is `a + b` (subgroup path only)
// and the kernel defines WG (its workgroup size). Every function is called by the whole
// workgroup in uniform control flow (they have barriers). A kernel that calls them more
// than once puts a workgroupBarrier() between two calls (they reuse workgroup memory).

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}

struct BlockScan {
  before: BlockT,  // combination of the values of the invocations before this one
  total: BlockT,   // combination of every invocation's value
}

var<workgroup> block_lanes: array<BlockT, WG>;

// Kogge-Stone: log2(WG) rounds; each reads its neighbour before anyone overwrites it.
// Leaves the inclusive scan in block_lanes.
fn block_lanes_inclusive(t: u32, v: BlockT) {
  block_lanes[t] = v;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = block_lanes[t];
    if (t >= d) {
      x = block_combine(block_lanes[t - d], x);
    }
    workgroupBarrier();
    block_lanes[t] = x;
    workgroupBarrier();
  }
}

fn block_lanes_before(t: u32) -> BlockT {
  var prefix = block_identity();
  if (t > 0u) {
    prefix = block_lanes[t - 1u];
  }
  return prefix;
}

// The exclusive prefix of v: the combination of the values of invocations 0 .. index - 1.
fn block_exclusive_scan(inv: Invocation, v: BlockT) -> BlockT {
  block_lanes_inclusive(inv.index, v);
  return block_lanes_before(inv.index);
}

// The exclusive prefix and the workgroup's total.
fn block_exclusive_scan_total(inv: Invocation, v: BlockT) -> BlockScan {
  block_lanes_inclusive(inv.index, v);
  return BlockScan(block_lanes_before(inv.index), block_lanes[WG - 1u]);
}
