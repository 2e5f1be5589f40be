// Reduction along one axis of an array viewed as (outer, length, inner), and segmented
// reduction over CSR offsets (a row of a contiguous last axis is a segment of equal length).
//
// Two shapes of work, picked by ops/axis.py:
// - columns (inner > 1, or rows too short for a workgroup): each invocation owns one
//   (outer, inner) column and walks `length`; neighbouring invocations read neighbouring
//   addresses, so every load is coalesced. When there are too few columns to fill the
//   GPU, `length` is split in `splits` pieces whose partials a second dispatch combines.
// - rows (inner == 1): one workgroup per (segment, split) walks its part of the segment
//   with strided loads and combines in workgroup memory.
// The partials are read only by a later dispatch (the end of a dispatch is the only
// global sync). The preamble (ops/operators.py) defines T, A, R, identity(), combine(),
// lift() and finish(); lift gets the position along the axis (argmin/argmax).

override WG: u32 = 256u;

struct Params {
  outer: u32,    // columns mode: outer extent; rows mode: segments
  length: u32,   // extent of the reduced axis (rows mode with offsets: unused)
  inner: u32,    // columns mode: inner extent
  splits: u32,   // pieces `length` (or each segment) is split into
  chunk: u32,    // columns mode: positions per piece
  groups: u32,   // workgroups with work (the grid may be folded and larger)
  uniform_rows: u32, // rows mode: 1 = segment s is [s * length, (s + 1) * length)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> partials_out: array<A>;
@group(0) @binding(3) var<storage, read> partials_in: array<A>;
@group(0) @binding(4) var<storage, read_write> result: array<R>;
@group(0) @binding(5) var<storage, read> offsets: array<u32>;

var<workgroup> scratch: array<A, WG>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// -- columns ------------------------------------------------------------------------
// Invocation g reduces positions [s * chunk, (s + 1) * chunk) of column (o, c), where
// g = (o * splits + s) * inner + c. Returns false for invocations past the end.
fn column_reduce(g: u32, acc_out: ptr<function, A>) -> bool {
  let inner = params.inner;
  let columns = params.outer * params.splits * inner;
  if (g >= columns) {
    return false;
  }
  let c = g % inner;
  let r = g / inner;
  let s = r % params.splits;
  let o = r / params.splits;
  let first = s * params.chunk;
  let last = min(first + params.chunk, params.length);
  let base = o * params.length * inner + c;
  var acc = identity();
  var l = first;
  // Four independent loads in flight per iteration.
  for (; l + 4u <= last; l += 4u) {
    let x0 = src[base + l * inner];
    let x1 = src[base + (l + 1u) * inner];
    let x2 = src[base + (l + 2u) * inner];
    let x3 = src[base + (l + 3u) * inner];
    acc = combine(acc, combine(combine(lift(x0, l), lift(x1, l + 1u)), combine(lift(x2, l + 2u), lift(x3, l + 3u))));
  }
  for (; l < last; l++) {
    acc = combine(acc, lift(src[base + l * inner], l));
  }
  *acc_out = acc;
  return true;
}

@compute @workgroup_size(WG)
fn columns_final(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  var acc: A;
  if (column_reduce(g, &acc)) {
    result[g] = finish(acc);
  }
}

@compute @workgroup_size(WG)
fn columns_partial(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  var acc: A;
  if (column_reduce(g, &acc)) {
    partials_out[g] = acc;
  }
}

// Second dispatch: partials laid out (outer, splits, inner) -> result (outer, inner).
@compute @workgroup_size(WG)
fn combine_columns(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let g = group_index(wid, nwg) * WG + t;
  let inner = params.inner;
  if (g >= params.outer * inner) {
    return;
  }
  let c = g % inner;
  let o = g / inner;
  // Eight independent loads in flight per iteration: one at a time, the loads' latency
  // made this pass 0.02 ms for 32 partials of 16384 columns on an H200.
  let first = o * params.splits * inner + c;
  var acc = identity();
  var s = 0u;
  for (; s + 8u <= params.splits; s += 8u) {
    let p0 = partials_in[first + s * inner];
    let p1 = partials_in[first + (s + 1u) * inner];
    let p2 = partials_in[first + (s + 2u) * inner];
    let p3 = partials_in[first + (s + 3u) * inner];
    let p4 = partials_in[first + (s + 4u) * inner];
    let p5 = partials_in[first + (s + 5u) * inner];
    let p6 = partials_in[first + (s + 6u) * inner];
    let p7 = partials_in[first + (s + 7u) * inner];
    acc = combine(acc, combine(combine(combine(p0, p1), combine(p2, p3)), combine(combine(p4, p5), combine(p6, p7))));
  }
  for (; s < params.splits; s++) {
    acc = combine(acc, partials_in[first + s * inner]);
  }
  result[g] = finish(acc);
}

// -- rows (segments) ---------------------------------------------------------------
fn workgroup_reduce(t: u32, value: A) -> A {
  scratch[t] = value;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (t < s) {
      scratch[t] = combine(scratch[t], scratch[t + s]);
    }
    workgroupBarrier();
  }
  let total = scratch[0];
  workgroupBarrier();
  return total;
}

fn segment_bounds(seg: u32) -> vec2<u32> {
  if (params.uniform_rows == 1u) {
    return vec2<u32>(seg * params.length, seg * params.length + params.length);
  }
  return vec2<u32>(offsets[seg], offsets[seg + 1u]);
}

// Workgroup `group` = (segment, piece): its part of the segment, combined to one value.
fn row_reduce(group: u32, t: u32) -> A {
  let seg = group / params.splits;
  let s = group % params.splits;
  let bounds = segment_bounds(seg);
  let len = bounds.y - bounds.x;
  let piece = (len + params.splits - 1u) / params.splits;
  let first = bounds.x + min(s * piece, len);
  let last = bounds.x + min(s * piece + piece, len);
  var acc = identity();
  var i = first + t;
  for (; i + 3u * WG < last; i += 4u * WG) {
    let x0 = src[i];
    let x1 = src[i + WG];
    let x2 = src[i + 2u * WG];
    let x3 = src[i + 3u * WG];
    let p = i - bounds.x;
    acc = combine(acc, combine(combine(lift(x0, p), lift(x1, p + WG)), combine(lift(x2, p + 2u * WG), lift(x3, p + 3u * WG))));
  }
  for (; i < last; i += WG) {
    acc = combine(acc, lift(src[i], i - bounds.x));
  }
  return workgroup_reduce(t, acc);
}

@compute @workgroup_size(WG)
fn rows_final(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let total = row_reduce(group, t);
  if (t == 0u) {
    result[group] = finish(total);
  }
}

@compute @workgroup_size(WG)
fn rows_partial(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let total = row_reduce(group, t);
  if (t == 0u) {
    partials_out[group] = total;
  }
}
