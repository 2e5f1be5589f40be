// The single-pass scan with coalesced loads and stores (adapters whose subgroups are
// consecutive invocations). Put after scan_chained.wgsl and block_scan_subgroup.wgsl.
//
// Subgroup g (of S lanes) owns ROWS * S consecutive packets (kernels/packet_vec4.wgsl) of
// the tile, as ROWS rows of S: lane l holds packet k * S + l of its subgroup's range, so
// each load and store instruction of a subgroup touches S consecutive packets. Each row is scanned across the lanes with
// shuffles (in order), rows follow each other, and subgroups follow each other through
// workgroup memory.

var<workgroup> striped_totals: array<T, WG>;

// Inclusive scan of x across the subgroup's lanes, in lane order.
fn subgroup_inclusive(inv: Invocation, v: T) -> T {
  var x = v;
  for (var d = 1u; d < inv.sg_size; d = d << 1u) {
    let y = subgroupShuffleUp(x, d);
    x = select(x, combine(y, x), inv.sg_lane >= d);  // no branch between subgroup operations
  }
  return x;
}

@compute @workgroup_size(WG)
fn scan_chained_striped(inv: Invocation) {
  let tile = group_index(inv);
  if (tile >= params.groups) {
    return;
  }
  let s = inv.sg_size;
  let sg = inv.index / s;
  let base = tile * WG * ROWS + sg * s * ROWS + inv.sg_lane;
  var v: array<Packet, ROWS>;
  var lane_before: array<T, ROWS>;  // the row's elements before this lane, from the subgroup's start
  // Every load is issued before any is used, and the loops are written out (unroll.py) so
  // that v and lane_before stay in registers.
  // unroll
  for (var k = 0u; k < ROWS; k++) {
    v[k] = load_vec(base + k * s);
  }
  var run = identity();             // the subgroup's rows so far
  // unroll
  for (var k = 0u; k < ROWS; k++) {
    let inclusive = subgroup_inclusive(inv, total4(v[k]));
    let left = subgroupShuffleUp(inclusive, 1u);
    lane_before[k] = select(combine(run, left), run, inv.sg_lane == 0u);
    run = combine(run, subgroupShuffle(inclusive, s - 1u));
  }
  if (inv.sg_lane == s - 1u) {
    striped_totals[sg] = run;
  }
  workgroupBarrier();
  var before_sg = identity();
  for (var g = 0u; g < sg; g++) {
    before_sg = combine(before_sg, striped_totals[g]);
  }
  if (inv.index == WG - 1u) {
    lb_aggregate = combine(before_sg, run);
  }
  let prefix = chained_prefix(inv, tile, tile == params.groups - 1u);
  let start = combine(prefix, before_sg);
  let exclusive = params.exclusive == 1u;
  // unroll
  for (var k = 0u; k < ROWS; k++) {
    let scanned = scan_packet(combine(start, lane_before[k]), v[k], exclusive);
    let i = base + k * s;
    if (i * PACKET < params.n) {
      dst[i] = scanned.values;
    }
  }
}
