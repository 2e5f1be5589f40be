// Scan along one axis of an array viewed as (outer, length, inner), and segmented scan
// over CSR offsets (rows of a contiguous last axis are segments of equal length).
//
// - scan_columns (inner > 1): each invocation owns one (outer, inner) column and walks
//   `length` in order; neighbouring invocations touch neighbouring addresses.
// - scan_rows: one workgroup per segment walks it in tiles of WG * ITEMS elements: each
//   invocation scans ITEMS consecutive elements, the workgroup scans the invocation
//   totals (Hillis-Steele in workgroup memory), and the running total of the previous
//   tiles is carried in a register. No workgroup reads another's data.
// The preamble (ops/operators.py) defines T, identity() and combine(); combine must be
// associative, not commutative: every combination keeps the order of the elements.

override WG: u32 = 256u;
const ITEMS: u32 = 8u;

struct Params {
  outer: u32,        // columns: outer extent; rows: segments
  length: u32,       // extent of the scanned axis (rows with offsets: unused)
  inner: u32,        // columns: inner extent
  exclusive: u32,    // 1: exclusive scan (starts from the identity)
  uniform_rows: u32, // rows: 1 = segment s is [s * length, (s + 1) * length)
  groups: u32,       // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;

var<workgroup> lanes: array<T, WG>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

@compute @workgroup_size(WG)
fn scan_columns(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  let inner = params.inner;
  if (g >= params.outer * inner) {
    return;
  }
  let c = g % inner;
  let o = g / inner;
  let base = o * params.length * inner + c;
  var acc = identity();
  for (var l = 0u; l < params.length; l++) {
    let i = base + l * inner;
    let x = src[i];
    let next = combine(acc, x);
    dst[i] = select(next, acc, params.exclusive == 1u);
    acc = next;
  }
}

fn segment_bounds(seg: u32) -> vec2<u32> {
  if (params.uniform_rows == 1u) {
    return vec2<u32>(seg * params.length, seg * params.length + params.length);
  }
  return vec2<u32>(offsets[seg], offsets[seg + 1u]);
}

@compute @workgroup_size(WG)
fn scan_rows(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let seg = group_index(wid, nwg);
  if (seg >= params.groups) {
    return;
  }
  let bounds = segment_bounds(seg);
  let exclusive = params.exclusive == 1u;
  var carry = identity();
  for (var tile = bounds.x; tile < bounds.y; tile += WG * ITEMS) {
    // This invocation's ITEMS consecutive elements, scanned in registers.
    let first = tile + t * ITEMS;
    var items: array<T, ITEMS>;
    var total = identity();
    for (var k = 0u; k < ITEMS; k++) {
      let i = first + k;
      var x = identity();
      if (i < bounds.y) {
        x = src[i];
      }
      items[k] = x;
      total = combine(total, x);
    }
    // Inclusive scan of the invocation totals.
    lanes[t] = total;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d << 1u) {
      var v = lanes[t];
      if (t >= d) {
        v = combine(lanes[t - d], v);
      }
      workgroupBarrier();
      lanes[t] = v;
      workgroupBarrier();
    }
    var prefix = carry;
    if (t > 0u) {
      prefix = combine(carry, lanes[t - 1u]);
    }
    let tile_total = lanes[WG - 1u];
    workgroupBarrier();  // lanes is rewritten by the next tile
    for (var k = 0u; k < ITEMS; k++) {
      let i = first + k;
      let next = combine(prefix, items[k]);
      if (i < bounds.y) {
        dst[i] = select(next, prefix, exclusive);
      }
      prefix = next;
    }
    carry = combine(carry, tile_total);
  }
}
