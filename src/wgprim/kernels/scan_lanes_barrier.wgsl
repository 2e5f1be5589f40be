// Workgroup-wide exclusive scan of one value per invocation, with workgroup memory and
// barriers only (the path for adapters without subgroups). Put before scan.wgsl.

struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
}

var<workgroup> lanes: array<T, WG>;

// Kogge-Stone: log2(WG) rounds; each reads its neighbour before anyone overwrites it.
fn lanes_exclusive_scan(inv: Invocation, v: T) -> T {
  let t = inv.index;
  lanes[t] = v;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = lanes[t];
    if (t >= d) {
      x = combine(lanes[t - d], x);
    }
    workgroupBarrier();
    lanes[t] = x;
    workgroupBarrier();
  }
  var prefix = identity();
  if (t > 0u) {
    prefix = lanes[t - 1u];
  }
  return prefix;
}
