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
  splits: u32,       // columns: pieces the axis is cut into (their totals scanned apart)
  chunk: u32,        // columns: positions per piece
  has_prefix: u32,   // 1 = piece (o, s, c) / segment s starts from piece_prefix
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> piece_totals: array<T>;
@group(0) @binding(5) var<storage, read> piece_prefix: array<T>;

var<workgroup> lanes: array<T, WG>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Piece g = (o * splits + s) * inner + c of the columns: positions [s * chunk, ...) of
// column (o, c). Returns (first index, last position, stride) or stride 0 past the end.
fn piece(g: u32) -> vec4<u32> {
  let inner = params.inner;
  if (g >= params.outer * params.splits * inner) {
    return vec4<u32>(0u);
  }
  let c = g % inner;
  let r = g / inner;
  let s = r % params.splits;
  let o = r / params.splits;
  let first = s * params.chunk;
  let last = min(first + params.chunk, params.length);
  return vec4<u32>(o * params.length * inner + c, first, last, inner);
}

// Long axes with few columns: first the total of every piece (scanned by a later
// dispatch), then scan_columns starts each piece from its prefix. Also keeps the walk
// of one invocation short.
@compute @workgroup_size(WG)
fn column_piece_totals(@builtin(workgroup_id) wid: vec3<u32>,
                       @builtin(num_workgroups) nwg: vec3<u32>,
                       @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  let p = piece(g);
  if (p.w == 0u) {
    return;
  }
  var acc = identity();
  for (var l = p.y; l < p.z; l++) {
    acc = combine(acc, src[p.x + l * p.w]);
  }
  piece_totals[g] = acc;
}

@compute @workgroup_size(WG)
fn scan_columns(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  let p = piece(g);
  if (p.w == 0u) {
    return;
  }
  var acc = identity();
  if (params.has_prefix == 1u) {
    acc = piece_prefix[g];
  }
  for (var l = p.y; l < p.z; l++) {
    let i = p.x + l * p.w;
    let next = combine(acc, src[i]);
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

// Scan segment `seg` from `carry`; writes dst unless totals_only; returns its total.
// Long segments are cut into pieces (ops/axis.py): the pieces' totals first
// (row_piece_totals), their exclusive scan per segment, then each piece from its prefix.
fn scan_segment(seg: u32, t: u32, totals_only: bool) -> T {
  let bounds = segment_bounds(seg);
  let exclusive = params.exclusive == 1u;
  var carry = identity();
  if (params.has_prefix == 1u) {
    carry = piece_prefix[seg];
  }
  for (var tile = bounds.x; tile < bounds.y; tile += WG * ITEMS) {
    // This invocation's ITEMS consecutive elements, scanned in registers.
    let first = tile + t * ITEMS;
    var items: array<T, ITEMS>;
    var total = identity();
    // unroll
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
    if (!totals_only) {
      // unroll
      for (var k = 0u; k < ITEMS; k++) {
        let i = first + k;
        let next = combine(prefix, items[k]);
        if (i < bounds.y) {
          dst[i] = select(next, prefix, exclusive);
        }
        prefix = next;
      }
    }
    carry = combine(carry, tile_total);
  }
  return carry;
}

@compute @workgroup_size(WG)
fn scan_rows(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let seg = group_index(wid, nwg);
  if (seg >= params.groups) {
    return;
  }
  scan_segment(seg, t, false);
}

@compute @workgroup_size(WG)
fn row_piece_totals(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) t: u32) {
  let seg = group_index(wid, nwg);
  if (seg >= params.groups) {
    return;
  }
  let total = scan_segment(seg, t, true);
  if (t == 0u) {
    piece_totals[seg] = total;
  }
}

// include_initial (cumulative_sum): dst, viewed as (outer, length + 1, inner), takes the
// identity at position 0 of the axis and src's scan, viewed as (outer, length, inner), after
// it. One invocation per element of dst.
@compute @workgroup_size(WG)
fn shift_initial(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  let g = group * WG + t;
  let inner = params.inner;
  let positions = params.length + 1u;
  if (group >= params.groups || g >= params.outer * positions * inner) {
    return;
  }
  let c = g % inner;
  let r = g / inner;
  let l = r % positions;
  let o = r / positions;
  var v = identity();
  if (l > 0u) {
    v = src[(o * params.length + l - 1u) * inner + c];
  }
  dst[g] = v;
}
