// Exact sums: every finite element's term (itself, or its square) added exactly into a
// fixed-point superaccumulator of 16-bit digits (ExBLAS's idea: Collange, Defour,
// Graillat, Iakymchuk, 2015), with no float arithmetic at all. ops/exact_sum.py states the
// structure and the bounds.
//
// Before this file: kernels/exact_split.wgsl, one format (exact_f64.wgsl, exact_f32.wgsl
// or an integer one, exact_int32.wgsl ...: E, split()) and one term (exact_sum_term.wgsl or exact_square_term.wgsl:
// DIGITS, WINDOW, Term, term()). Slots of an accumulator: DIGITS digits (signed i32 sums
// of 16-bit digits), then the counts of +inf, -inf and NaN.
//
// exact_pieces (dispatch 1): workgroup g sums the terms of one piece of at most PIECE
// elements of one row into digits in workgroup memory by atomicAdd (exact, and the same
// in any order), and writes its slots, as i32, to its own place in `pieces`. A digit gains
// less than 2^16 per element, so PIECE <= 2^15 elements keep every digit below 2^31: no
// carries.
// exact_combine_wide / exact_combine_rows (dispatch 2): the pieces of each row added slot
// by slot into 64-bit integers (exact for any count below 2^32 pieces); not run when every
// row is one piece (the host reads the pieces' words). No workgroup
// reads another's result in the dispatch that writes it; the host rounds the result.

override WG: u32 = 256u;
const SLOTS: u32 = DIGITS + 3u;

struct Params {
  length: u32,  // elements per row
  inner: u32,   // stride between a row's elements (and rows per outer block)
  pieces: u32,  // pieces per row
  piece: u32,   // elements per piece
  groups: u32,  // workgroups with work (the grid may be folded and larger)
  first: u32,   // this dispatch's first piece in `pieces_out` (chunks of a long row)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<E>;
@group(0) @binding(2) var<storage, read_write> pieces_out: array<i32>;
@group(0) @binding(3) var<storage, read> pieces_in: array<i32>;
@group(0) @binding(4) var<storage, read_write> sums: array<vec2<u32>>;

var<workgroup> acc: array<atomic<i32>, SLOTS>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

fn signed_digit(d: u32, negative: bool) -> i32 {
  return select(i32(d), -i32(d), negative);
}

// Add a window of digits (summed by one invocation) to the workgroup's digits.
fn flush(low: u32, w: array<i32, WINDOW>) {
  // unroll
  for (var k = 0u; k < WINDOW; k++) {
    if (w[k] != 0) {
      atomicAdd(&acc[low + k], w[k]);
    }
  }
}

@compute @workgroup_size(WG)
fn exact_pieces(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  for (var s = t; s < SLOTS; s += WG) {
    atomicStore(&acc[s], 0);
  }
  workgroupBarrier();
  let row = group / params.pieces;
  let start = (group % params.pieces) * params.piece;
  let end = min(start + params.piece, params.length);
  let base = (row / params.inner) * params.length * params.inner + row % params.inner;
  // Each invocation keeps a window of digits from `low`, and adds it to the workgroup's
  // digits only when a term lands elsewhere: data of similar magnitudes costs few
  // atomics. The window's sums stay below 2^31 as the digits' do.
  var low = 0xffffffffu;
  var window: array<i32, WINDOW>;
  for (var j = start + t; j < end; j += WG) {
    let s = split(src[base + j * params.inner]);
    if (s.kind != FINITE) {
      atomicAdd(&acc[DIGITS + s.kind - 1u], 1);
      continue;
    }
    if (all(s.m == vec4<u32>(0u))) {
      continue;  // a zero
    }
    let tm = term(s);
    if (tm.low != low) {
      if (low != 0xffffffffu) {
        flush(low, window);
      }
      low = tm.low;
      window = array<i32, WINDOW>();
    }
    // unroll
    for (var k = 0u; k < WINDOW; k++) {
      window[k] += signed_digit(tm.d[k], tm.negative);
    }
  }
  if (low != 0xffffffffu) {
    flush(low, window);
  }
  workgroupBarrier();
  let out = (params.first + group) * SLOTS;
  for (var s = t; s < SLOTS; s += WG) {
    pieces_out[out + s] = atomicLoad(&acc[s]);
  }
}

fn widen(v: i32) -> vec2<u32> {
  return vec2<u32>(bitcast<u32>(v), select(0u, 0xffffffffu, v < 0));
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

var<workgroup> tree: array<vec2<u32>, WG>;

// Dispatch 2 for rows of many pieces: workgroup g adds slot g % SLOTS of every piece of
// row g / SLOTS, its invocations striding over the pieces, then a tree in workgroup memory.
// params.groups: rows * SLOTS.
@compute @workgroup_size(WG)
fn exact_combine_wide(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let row = group / SLOTS;
  let slot = group % SLOTS;
  var total = vec2<u32>(0u, 0u);
  for (var k = t; k < params.pieces; k += WG) {
    total = add64(total, widen(pieces_in[(row * params.pieces + k) * SLOTS + slot]));
  }
  tree[t] = total;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (t < s) {
      tree[t] = add64(tree[t], tree[t + s]);
    }
    workgroupBarrier();
  }
  if (t == 0u) {
    sums[group] = tree[0];
  }
}

// Dispatch 2 for rows of few pieces: invocation i adds slot i % SLOTS of every piece of
// row i / SLOTS. params.groups: rows * SLOTS (invocations with work).
@compute @workgroup_size(WG)
fn exact_combine_rows(@builtin(workgroup_id) wid: vec3<u32>,
                      @builtin(num_workgroups) nwg: vec3<u32>,
                      @builtin(local_invocation_index) t: u32) {
  let i = group_index(wid, nwg) * WG + t;
  if (i >= params.groups) {
    return;
  }
  let row = i / SLOTS;
  let slot = i % SLOTS;
  var total = vec2<u32>(0u, 0u);
  for (var k = 0u; k < params.pieces; k++) {
    total = add64(total, widen(pieces_in[(row * params.pieces + k) * SLOTS + slot]));
  }
  sums[i] = total;
}
