// block_exclusive_sum for the radix sort, without subgroup operations (the fallback).
//
// Every invocation of the workgroup passes one u32; returns (exclusive prefix in
// invocation order, workgroup total). Kogge-Stone in workgroup memory: log2(WG) steps.
// Must be called by the whole workgroup (it has barriers).

var<workgroup> block_lanes: array<u32, WG>;

fn block_exclusive_sum(t: u32, v: u32) -> vec2<u32> {
  block_lanes[t] = v;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = block_lanes[t];
    if (t >= d) {
      x += block_lanes[t - d];
    }
    workgroupBarrier();
    block_lanes[t] = x;
    workgroupBarrier();
  }
  let inclusive = block_lanes[t];
  let total = block_lanes[WG - 1u];
  workgroupBarrier();  // everyone has read before the next call writes
  return vec2<u32>(inclusive - v, total);
}
