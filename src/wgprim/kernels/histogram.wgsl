// Histogram and bincount: private histograms in workgroup memory, merged with atomics.
//
// One dispatch per chunk of the input. Each workgroup counts its share of the elements
// into its own histogram in workgroup memory, then adds every non-empty bin into the
// global histogram with one atomic per bin. Many workgroups add into the same global
// bins during the dispatch; nobody reads them until the dispatch has ended (the result
// is read back after the submit), which is the legitimate use of cross-workgroup atomics.
// When the bins do not fit in workgroup memory, `hist_global` adds into the global
// histogram directly.
//
// The preamble (ops/histogram.py) defines:
//   alias T                       the element type (u32, i32, f32)
//   alias W                       the weight type (u32 when unweighted: never read)
//   const FLOAT_ACC: bool         accumulate f32 sums (CAS loops) instead of u32 adds
//   fn offset_of(x: T, lo: T) -> f32   x - lo as f32, for the estimate (of the bin, or of
//                                 the guide cell for uneven edges)
//   fn key(x: T) -> u32           order-preserving key: every comparison with an edge goes
//                                 through it (exact even where float compares flush
//                                 denormals to zero; NaN keys fall outside any range)
//   fn load_weights(v: u32) -> vec4<u32> the bits of the 4 weights of vec4 `v` (1s if unweighted)
//   fn load_src(v: u32) -> vec4<T>  elements 4v..4v+3 of the input (binding 1, declared there:
//                                 src[v] itself, or for bincount of 64-bit integers the low
//                                 words of two vec4<u32>)

override WG: u32 = 256u;
override MODE: u32 = 0u;    // 0: uniform bins, 1: binary search over edges, 2: bincount
override PRIV: u32 = 256u;  // private bins per copy (>= nbins)
// Copies of the private histogram: invocation t uses copy t / (WG / COPIES), so with 8
// copies of a 256-invocation workgroup each copy belongs to one group of 32 consecutive
// invocations (one subgroup on most GPUs): hot bins contend only inside that group.
override COPIES: u32 = 1u;
// EDGES > 1: each bin's key range (bin_range) is computed into workgroup memory once per
// workgroup and read there per element (EDGES >= nthresh + 1); 1: computed per read.
override EDGES: u32 = 1u;
const SKIP: u32 = 0xffffffffu;

struct Params {
  n: u32,        // elements in this chunk
  groups: u32,   // workgroups with work (the folded grid may be larger)
  nbins: u32,
  nthresh: u32,  // m: thresholds[1..m] are the interior edges (as T); thresholds[0] = lo
  lo: u32,       // bits of the smallest kept value (T)
  hi: u32,       // bits of the largest kept value (T)
  scale: u32,    // bits of f32 nbins (MODE 1: cells) / (last edge - first edge)
  shift: u32,    // bits of f32 (lo - first edge) * scale: lo is the edge moved to T's values
  cells: u32,    // MODE 1: cells of the guide table (0: none), after the thresholds
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(2) var<storage, read> weights: array<vec4<W>>;
// thresholds[0] = lo, thresholds[1..m] the interior edges; in MODE 1 followed by the
// guide table (cells + 1 u32 entries, stored as T bits).
@group(0) @binding(3) var<storage, read> thresholds: array<T>;
@group(0) @binding(4) var<storage, read_write> hist: array<atomic<u32>>;

var<workgroup> private_hist: array<atomic<u32>, PRIV * COPIES>;
var<workgroup> shared_ranges: array<vec2<u32>, EDGES>;

// The keys of bin b: (first, count), i.e. first <= key < first + count in wrap-around
// u32 arithmetic (no overflow at either end of the key range): the keys from
// thresholds[b] up to the next threshold (excluded) or, for the last bin, hi (included),
// never beyond hi. count 0 marks a bin no single test can describe (an empty bin, or one
// holding all 2^32 keys): bin_of then takes the exact search.
fn bin_range_of(b: u32) -> vec2<u32> {
  let first = key(thresholds[b]);
  let top = key(bitcast<T>(params.hi));  // the largest kept key
  var last = top;
  if (b < params.nthresh) {
    let next = key(thresholds[b + 1u]);
    if (next == 0u) {
      return vec2<u32>(first, 0u);
    }
    last = min(next - 1u, top);
  }
  if (last < first) {
    return vec2<u32>(first, 0u);
  }
  return vec2<u32>(first, last - first + 1u);
}

fn bin_range(b: u32) -> vec2<u32> {
  if (EDGES > 1u) {
    return shared_ranges[b];
  }
  return bin_range_of(b);
}

// Fill shared_ranges (when used); the caller's barrier publishes it to the workgroup.
fn load_bin_ranges(t: u32) {
  if (EDGES > 1u) {
    for (var i = t; i <= params.nthresh; i += WG) {
      shared_ranges[i] = bin_range_of(i);
    }
  }
}

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The bin of x, or SKIP when x is outside [lo, hi] (NaN included). The bin is the number
// of interior edges <= x: numpy's definition (last bin closed on the right).
fn bin_of(x: T) -> u32 {
  if (MODE == 2u) {
    return bitcast<u32>(x);  // bincount: the host checked 0 <= x < nbins
  }
  let k = key_nan_apart(x);  // a NaN fails every bin's key range, and search_bin's is_nan
  let lo = bitcast<T>(params.lo);
  let est = fma(offset_of(x, lo), bitcast<f32>(params.scale), bitcast<f32>(params.shift));
  if (MODE == 0u) {
    // Estimate from the uniform width, then check the estimate against the bin's key
    // range: one test decides almost every element (in range or not, NaN included:
    // NaN keys lie outside every range). Next to an edge the f32 estimate may be off
    // (by more than one bin where the edges are coarse in T): the exact search decides.
    // Whatever u32() gives for a NaN or out-of-range estimate, min() keeps b in [0, m].
    let b = min(u32(est), params.nthresh);
    let range = bin_range(b);
    if (k - range.x < range.y) {
      return b;
    }
  } else if (params.cells > 0u) {
    // Uneven edges: the estimate picks one of `cells` equal cells of the range, and the
    // guide table holds the bin of each cell boundary. Unless several edges fall in the
    // cell (or the estimate picked a neighbouring cell), x is in the bin of the cell's
    // right boundary or of its left one: check those two, as above, before searching.
    let c = min(u32(est), params.cells - 1u);
    let right = guide(c + 1u);
    let right_range = bin_range(right);
    if (k - right_range.x < right_range.y) {
      return right;
    }
    let left = guide(c);
    let left_range = bin_range(left);
    if (k - left_range.x < left_range.y) {
      return left;
    }
  }
  return search_bin(x, k);
}

// Entry c of the guide table. Read from storage (cached): a copy in workgroup memory
// measured slower on an H200, as it leaves room for fewer workgroups.
fn guide(c: u32) -> u32 {
  return bitcast<u32>(thresholds[params.nthresh + 1u + c]);
}

// The exact bin by binary search: the largest b in [0, m] with thresholds[b] <= x
// (thresholds[0] = lo), or SKIP outside [lo, hi].
fn search_bin(x: T, k: u32) -> u32 {
  if (k < key(bitcast<T>(params.lo)) || k > key(bitcast<T>(params.hi)) || is_nan(x)) {
    return SKIP;
  }
  var a = 0u;
  var z = params.nthresh;
  while (a < z) {
    let mid = (a + z + 1u) / 2u;
    if (bin_range(mid).x <= k) { a = mid; } else { z = mid - 1u; }
  }
  return a;
}

// f32 addition on a u32 atomic by compare-and-swap. This is not a wait on anyone: each
// round one of the contending invocations succeeds, so the loop always makes progress.
fn private_add_f32(i: u32, w: f32) {
  var old = atomicLoad(&private_hist[i]);
  loop {
    let r = atomicCompareExchangeWeak(&private_hist[i], old, bitcast<u32>(bitcast<f32>(old) + w));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

fn global_add_f32(i: u32, w: f32) {
  var old = atomicLoad(&hist[i]);
  loop {
    let r = atomicCompareExchangeWeak(&hist[i], old, bitcast<u32>(bitcast<f32>(old) + w));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

fn private_add(i: u32, bits: u32) {
  if (FLOAT_ACC) { private_add_f32(i, bitcast<f32>(bits)); } else { atomicAdd(&private_hist[i], bits); }
}

fn global_add(i: u32, bits: u32) {
  if (FLOAT_ACC) { global_add_f32(i, bitcast<f32>(bits)); } else { atomicAdd(&hist[i], bits); }
}

// The 4 elements of one vec4 into the private histogram (written out per component:
// no vector indexed by a loop variable, which drivers may put in local memory).
fn private_add4(x: vec4<T>, w: vec4<u32>, r: u32) {
  let b = vec4<u32>(bin_of(x.x), bin_of(x.y), bin_of(x.z), bin_of(x.w));
  if (b.x != SKIP) { private_add(r + b.x, w.x); }
  if (b.y != SKIP) { private_add(r + b.y, w.y); }
  if (b.z != SKIP) { private_add(r + b.z, w.z); }
  if (b.w != SKIP) { private_add(r + b.w, w.w); }
}

// Histogram in workgroup memory: copy c of bin b lives at c * PRIV + b. Each workgroup
// strides over its share of the chunk (few, fat workgroups: the private histogram is
// zeroed and merged once per workgroup, not once per tile).
@compute @workgroup_size(WG)
fn hist_shared(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  for (var i = t; i < PRIV * COPIES; i += WG) {
    atomicStore(&private_hist[i], 0u);
  }
  load_bin_ranges(t);
  workgroupBarrier();
  let r = (t / (WG / COPIES)) * PRIV;  // this invocation's copy
  let n = params.n;
  let full = n / 4u;  // vec4s entirely in range
  let nvec = (n + 3u) / 4u;
  let stride = params.groups * WG;
  var v = group * WG + t;
  // Main loop: 4 whole vec4s per invocation, all loads issued before any atomic.
  for (; v + 3u * stride < full; v += 4u * stride) {
    let x0 = load_src(v);
    let x1 = load_src(v + stride);
    let x2 = load_src(v + 2u * stride);
    let x3 = load_src(v + 3u * stride);
    let w0 = load_weights(v);
    let w1 = load_weights(v + stride);
    let w2 = load_weights(v + 2u * stride);
    let w3 = load_weights(v + 3u * stride);
    private_add4(x0, w0, r);
    private_add4(x1, w1, r);
    private_add4(x2, w2, r);
    private_add4(x3, w3, r);
  }
  for (; v < nvec; v += stride) {
    let x = load_src(v);
    let w = load_weights(v);
    for (var k = 0u; k < 4u; k++) {
      if (v * 4u + k < n) {
        let b = bin_of(x[k]);
        if (b != SKIP) { private_add(r + b, w[k]); }
      }
    }
  }
  workgroupBarrier();
  for (var b = t; b < params.nbins; b += WG) {
    var total = 0u;
    for (var k = 0u; k < COPIES; k++) {
      let bits = atomicLoad(&private_hist[k * PRIV + b]);
      if (FLOAT_ACC) {
        total = bitcast<u32>(bitcast<f32>(total) + bitcast<f32>(bits));
      } else {
        total += bits;
      }
    }
    if (total != 0u) {  // empty bins cost no global atomic
      global_add(b, total);
    }
  }
}

// Too many bins for workgroup memory: every element adds into the global histogram.
@compute @workgroup_size(WG)
fn hist_global(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let n = params.n;
  let nvec = (n + 3u) / 4u;
  let stride = params.groups * WG;
  for (var v = group * WG + t; v < nvec; v += stride) {
    let x = load_src(v);
    let w = load_weights(v);
    for (var k = 0u; k < 4u; k++) {
      if (v * 4u + k < n) {
        let b = bin_of(x[k]);
        if (b != SKIP) { global_add(b, w[k]); }
      }
    }
  }
}
