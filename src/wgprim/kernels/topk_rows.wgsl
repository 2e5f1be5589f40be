// Top k of every row of `length` (ops/topk.py), rows read once: each workgroup owns
// R = WG / TPR rows, TPR invocations per row, each holding E elements of its row in
// registers (element lane + e * TPR: neighbouring invocations read neighbouring words).
// E is a constant of the preamble (`const E: u32 = ...;`): it sizes a private array.
//
// Per row, a radix select over the composite key (order key, index in the row), which
// is unique, so ties need no separate pass: 4 bits per step, KEY_STEPS steps of key bits
// (8, or 16 for 64-bit keys) then IDX_STEPS of index bits. A step counts the digit of the row's elements that match the
// prefix fixed so far (16 bins per row, workgroup atomics); after the barrier every
// invocation of the row reads the 16 bins and fixes the digit itself (no second
// barrier). A row stops counting once the chosen bin holds exactly the rank still
// wanted: every element matching the prefix is then among the k. The k chosen are
// appended to the row's slots, and each slot's rank among them (composite order) places
// it in the output: best first, ties by lower index; the value is read again from the
// row (its own bits: a key stands for both zeros and every NaN).
// Bins rotate through three sets per row: set s % 3 is counted in step s and read after
// its barrier, set (s + 2) % 3 is cleared then (read in step s - 1, counted in s + 2:
// a barrier lies between each of these).

// The preamble (ops/topk.py) defines the names of kernels/topk_select.wgsl's (Raw,
// OrderKey, raw_key, key_less) and the key's digits: KEY_STEPS, key_digit(k, s),
// key_with_digit(k, s, d), key_top_eq(a, b, s) (the digits before step s equal) and
// key_top_le(a, b, s) (the digits up to step s of a not above b's).

override WG: u32 = 256u;
override TPR: u32 = 32u;    // invocations per row: a power of two dividing WG
override DESCENDING: bool = false;  // largest first
override KMAX: u32 = 64u;   // slots per row (k <= KMAX)

override R: u32 = 8u;      // rows per workgroup: WG / TPR
const NOTHING: u32 = 0xffffffffu;

struct Params {
  rows: u32,
  length: u32,
  k: u32,
  idx_steps: u32,   // 4-bit digits of the index: ceil(log2(length) / 4)
  stride: u32,      // take_rows: positions per row in `positions`
  first: u32,       // take_rows: the first of them taken
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<Raw>;
@group(0) @binding(2) var<storage, read_write> out_vals: array<Raw>;
@group(0) @binding(3) var<storage, read_write> out_index: array<u32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;  // take_rows

var<workgroup> bins: array<atomic<u32>, R * 48u>;
var<workgroup> taken: array<atomic<u32>, R>;
var<workgroup> slot_key: array<OrderKey, R * KMAX>;
var<workgroup> slot_index: array<u32, R * KMAX>;

// The composite prefix fixed so far: key bits, then index bits.
struct Prefix {
  key: OrderKey,
  index: u32,
}

// Does (key, j) match the digits fixed before step s? (s = 0: everything.)
fn matches(key: OrderKey, j: u32, s: u32, p: Prefix) -> bool {
  if (s < KEY_STEPS) {
    return key_top_eq(key, p.key, s);
  }
  let fixed = 4u * (s - KEY_STEPS);
  let width = 4u * params.idx_steps;
  return all(key == p.key) && (fixed == 0u || (j >> (width - fixed)) == (p.index >> (width - fixed)));
}

// The digit of step s.
fn digit_of(key: OrderKey, j: u32, s: u32) -> u32 {
  if (s < KEY_STEPS) {
    return key_digit(key, s);
  }
  return (j >> (4u * params.idx_steps - 4u - 4u * (s - KEY_STEPS))) & 15u;
}

fn with_digit(p: Prefix, s: u32, d: u32) -> Prefix {
  var q = p;
  if (s < KEY_STEPS) {
    q.key = key_with_digit(q.key, s, d);
  } else {
    q.index |= d << (4u * params.idx_steps - 4u - 4u * (s - KEY_STEPS));
  }
  return q;
}

// Is (key, j) among the k, once step s fixed a bin holding exactly the rank wanted?
// Its composite digits up to step s are at most the prefix's.
fn chosen(key: OrderKey, j: u32, s: u32, p: Prefix) -> bool {
  if (s < KEY_STEPS) {
    return key_top_le(key, p.key, s);
  }
  let shift = 4u * params.idx_steps - 4u - 4u * (s - KEY_STEPS);
  return key_less(key, p.key) || (all(key == p.key) && (j >> shift) <= (p.index >> shift));
}

@compute @workgroup_size(WG)
fn topk_rows(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let r = t / TPR;
  let lane = t % TPR;
  let row = (wid.x + wid.y * nwg.x) * R + r;
  let live = row < params.rows;
  let length = params.length;
  let base = row * length;
  var keys: array<OrderKey, E>;
  // unroll
  for (var e = 0u; e < E; e++) {
    let j = lane + e * TPR;
    keys[e] = OrderKey(NOTHING);
    if (live && j < length) {
      keys[e] = raw_key(src[base + j]);
    }
  }
  for (var b = t; b < R * 48u; b += WG) {
    atomicStore(&bins[b], 0u);
  }
  if (lane == 0u) {
    atomicStore(&taken[r], 0u);
  }
  workgroupBarrier();

  var want = params.k;
  var prefix = Prefix(OrderKey(0u), 0u);
  var done = !live;
  var last = 0u;  // the step that settled the row
  let steps = KEY_STEPS + params.idx_steps;
  for (var s = 0u; s < steps; s++) {
    let counted = r * 48u + (s % 3u) * 16u;
    if (!done) {
      // unroll
      for (var e = 0u; e < E; e++) {
        let j = lane + e * TPR;
        if (j < length && matches(keys[e], j, s, prefix)) {
          atomicAdd(&bins[counted + digit_of(keys[e], j, s)], 1u);
        }
      }
    }
    workgroupBarrier();
    if (!done) {
      var below = 0u;
      var bin = 15u;
      var count = 0u;
      for (var b = 0u; b < 16u; b++) {
        count = atomicLoad(&bins[counted + b]);
        if (below + count >= want) {
          bin = b;
          break;
        }
        below += count;
      }
      want -= below;
      prefix = with_digit(prefix, s, bin);
      if (count == want) {
        done = true;
        last = s;
      }
    }
    for (var b = lane; b < 16u; b += TPR) {
      atomicStore(&bins[r * 48u + ((s + 2u) % 3u) * 16u + b], 0u);
    }
  }

  if (live) {
    // unroll
    for (var e = 0u; e < E; e++) {
      let j = lane + e * TPR;
      if (j < length && chosen(keys[e], j, last, prefix)) {
        let slot = atomicAdd(&taken[r], 1u);
        slot_key[r * KMAX + slot] = keys[e];
        slot_index[r * KMAX + slot] = j;
      }
    }
  }
  workgroupBarrier();
  if (live) {
    let k = params.k;
    for (var q = lane; q < k; q += TPR) {
      let key = slot_key[r * KMAX + q];
      let j = slot_index[r * KMAX + q];
      var rank = 0u;
      for (var o = 0u; o < k; o++) {
        let other = slot_key[r * KMAX + o];
        if (key_less(other, key) || (all(other == key) && slot_index[r * KMAX + o] < j)) {
          rank += 1u;
        }
      }
      out_vals[row * k + rank] = src[base + j];  // the input's own bits
      out_index[row * k + rank] = j;
    }
  }
}

// Rows ordered elsewhere (sorted by the bitonic top-k, or argsorted): k positions of each
// row from `positions` (stride per row, from `first` on) and the elements there, their
// own bits: out_index[r * k + c], out_vals[r * k + c].
@compute @workgroup_size(WG)
fn take_rows(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let i = (wid.x + wid.y * nwg.x) * WG + t;
  if (i >= params.rows * params.k) {
    return;
  }
  let r = i / params.k;
  let j = positions[r * params.stride + params.first + i % params.k];
  out_vals[i] = src[r * params.length + j];
  out_index[i] = j;
}
