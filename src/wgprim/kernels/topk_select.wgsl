// Radix select over one long array (ops/topk.py): the k-th smallest order key (reversed
// for the largest: DESCENDING), found digit by digit without sorting; then, for top-k,
// only the k chosen (raw key, index) pairs are written, and ranked (topk_rank).
// partition() and kth_smallest() use the same passes for the k-th key (and its index).
//
// An element is its composite key: the words of its order key (kernels/order_key.wgsl;
// one word for 32-bit values, two for 64-bit: high, then low), then its index. Each word
// is a level of three digit steps (12, 12 and 8 bits); steps run from 0 to 3 * levels - 1,
// each a pass (topk_pass, many workgroups; STEP a pipeline constant, the per-element path
// compiled for its step) then a pick (topk_pick, one workgroup; the step a parameter).
// A pass histograms the current digit of the elements that match every digit fixed so
// far (workgroup atomics, one global atomicAdd per non-empty bin); the pick finds the bin
// of the rank still wanted and fixes the digit. A level's word is fixed once its three
// steps are done (state FIXED + level).
// With EARLY_STOP (top-k), once a level ends with the wanted rank equal to the count of
// elements matching it, every one of them is chosen: the later steps are skipped (the
// index level when every tie with the k-th key is taken). Without (partition,
// kth_smallest), every level is fixed: the exact k-th key and, with the index level, its
// index. KEY_ONLY leaves the index level out (the key is all partition needs).
// Candidates: the first pass that starts with at most CAP matching elements appends them,
// (raw key, index), to `cand` while histogramming, and (WRITE_OUT) appends every element
// already below the prefix (fewer than k) to `out`. Later passes read only `cand`: a long
// array is read in full two or three times (two for spread values, three when the top
// 12 bits are crowded, as floats in [0, 1)), not once per step. Only when even the final
// bucket holds more than CAP elements (heavy ties) do the later steps and the take read
// the whole array again.
// topk_take appends the chosen elements that are not in `out` yet: composite key at most
// the fixed words. topk_rank then writes each chosen pair at its rank.
// Every pass reads the state the previous dispatches left; appends only claim slots
// (atomicAdd on a counter): the order is fixed by the rank that follows.
// Arrays beyond one storage binding: each pass and the take is one dispatch per window
// of the array (params.base: its first index); the candidates are read by the first
// window's dispatch only.
// Arrays beyond one storage binding: each pass and the take is one dispatch per window
// of the array (params.base its first index); the candidates are read by the first
// window's dispatch only.
//
// The preamble (ops/topk.py) defines `alias T`, the order keys (`alias OrderKey`, key),
// `alias Raw` (u32 or vec2<u32>: a value's bits), KEY_WORDS, PER_VEC (values per vec4),
// raw_in(v, c) (value c of a vec4 of bits), key_word(k, level), key_less(a, b) and
// raw_key(r) (the order key of bits, reversed when DESCENDING).

override WG: u32 = 256u;
override DESCENDING: bool = false;
override STEP: u32 = 0u;         // digit step
override CAP: u32 = 16384u;      // candidate capacity
override KEY_ONLY: bool = false; // no index level (partition)
override EARLY_STOP: bool = true;
override WRITE_OUT: bool = true; // append the chosen elements to `out` (top-k)

const BINS: u32 = 4096u;         // per step in `hist` (12-bit digits; the last of a word uses 256)
const MAX_STEPS: u32 = 9u;       // three levels of three digits

// state words
const PREFIX: u32 = 0u;      // bits fixed so far of the current level's word
const WANT: u32 = 1u;        // rank (1-based) still wanted among the elements matching
const COUNT: u32 = 2u;       // elements matching every digit fixed so far
const GATHERED: u32 = 3u;    // 1: the elements matching are in `cand`
const CAND_M: u32 = 4u;      // how many: written by the pick after the pass that gathered
const DONE: u32 = 5u;        // 1: the chosen are settled, later steps skipped (EARLY_STOP)
const LEVELS_FIXED: u32 = 6u;  // levels whose word is fixed
const FIXED: u32 = 8u;       // the fixed words, one per level (key words, then the index)
const STATE_WORDS: u32 = 16u;
// The append counters live after the histograms in `hist` (accumulated, never read back
// in the dispatch that adds to them).
const CAND_N: u32 = MAX_STEPS * BINS;
const OUT_N: u32 = MAX_STEPS * BINS + 1u;
const HIST_WORDS: u32 = MAX_STEPS * BINS + 2u;

struct Params {
  n: u32,       // elements in this window of the array
  k: u32,
  groups: u32,  // workgroups with work
  base: u32,    // index of the window's first element
  total: u32,   // elements of the array
  step: u32,    // topk_pick: the step
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cand_keys: array<Raw>;
@group(0) @binding(5) var<storage, read_write> cand_index: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_keys: array<Raw>;
@group(0) @binding(7) var<storage, read_write> out_index: array<u32>;

// topk_pass uses exactly 16 KiB, the WebGPU minimum of workgroup memory; topk_pick the rest.
var<workgroup> local_hist: array<atomic<u32>, BINS>;
var<workgroup> scan_sums: array<u32, WG>;
var<workgroup> skip_flag: u32;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

fn levels() -> u32 { return KEY_WORDS + select(1u, 0u, KEY_ONLY); }
fn digit(step: u32) -> u32 { return step % 3u; }
fn digit_shift(d: u32) -> u32 { return select(select(0u, 8u, d == 1u), 20u, d == 0u); }
fn digit_bins(d: u32) -> u32 { return select(4096u, 256u, d == 2u); }
// The bits above digit d (fixed by the earlier steps of the level).
fn digit_high(d: u32) -> u32 { return select(select(0xffffff00u, 0xfff00000u, d == 1u), 0u, d == 0u); }

// Word `level` of the composite key of (key k, index i).
fn comp_word(k: OrderKey, i: u32, level: u32) -> u32 {
  return select(key_word(k, level), i, level == KEY_WORDS);
}

fn raw_at(i: u32) -> Raw {
  return raw_in(keys[i / PER_VEC], i % PER_VEC);
}

// How the first `upto` composite words of (k, i) compare with the fixed ones.
const LESS: u32 = 0u;
const EQUAL: u32 = 1u;
const GREATER: u32 = 2u;
var<private> c_fixed: array<u32, 3>;

fn order_before(k: OrderKey, i: u32, upto: u32) -> u32 {
  for (var j = 0u; j < upto; j++) {
    let w = comp_word(k, i, j);
    if (w != c_fixed[j]) {
      return select(GREATER, LESS, w < c_fixed[j]);
    }
  }
  return EQUAL;
}

fn load_fixed() {
  for (var j = 0u; j < 3u; j++) {
    c_fixed[j] = atomicLoad(&state[FIXED + j]);
  }
}

// -- the per-element work of a pass, its context in private variables ---------------
var<private> c_prefix: u32;
var<private> c_gather: bool;

fn append(raw: Raw, i: u32, to_cand: bool) {
  if (to_cand) {
    let slot = atomicAdd(&hist[CAND_N], 1u);
    if (slot < CAP) {
      cand_keys[slot] = raw;
      cand_index[slot] = i;
    }
  } else {
    let slot = atomicAdd(&hist[OUT_N], 1u);
    if (slot < params.k) {
      out_keys[slot] = raw;
      out_index[slot] = i;
    }
  }
}

fn visit(raw: Raw, i: u32) {
  let level = STEP / 3u;
  let d = digit(STEP);
  let high = digit_high(d);
  let k = raw_key(raw);
  let order = order_before(k, i, level);
  let subject = comp_word(k, i, level);
  if (order == EQUAL && ((subject ^ c_prefix) & high) == 0u) {
    atomicAdd(&local_hist[(subject >> digit_shift(d)) & (digit_bins(d) - 1u)], 1u);
    if (c_gather) {
      append(raw, i, true);
    }
  } else if (WRITE_OUT && c_gather) {
    // Below the prefix: chosen for sure (there are fewer than k such elements).
    if (order == LESS || (order == EQUAL && (subject & high) < c_prefix)) {
      append(raw, i, false);
    }
  }
}

fn visit_vec(v: vec4<u32>, first: u32) {
  // unroll
  for (var c = 0u; c < PER_VEC; c++) {
    visit(raw_in(v, c), first + c);
  }
}

@compute @workgroup_size(WG)
fn topk_clear(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i < HIST_WORDS) {
    atomicStore(&hist[i], 0u);
  }
  if (i < STATE_WORDS) {
    var value = 0u;
    if (i == WANT) {
      value = params.k;
    } else if (i == COUNT) {
      value = params.total;
    }
    atomicStore(&state[i], value);
  }
}

@compute @workgroup_size(WG)
fn topk_pass(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  let bins = digit_bins(digit(STEP));
  // The same words for every invocation (written by earlier dispatches).
  c_prefix = atomicLoad(&state[PREFIX]);
  load_fixed();
  let gathered = atomicLoad(&state[GATHERED]) == 1u;
  c_gather = !gathered && atomicLoad(&state[COUNT]) <= CAP;
  let m = atomicLoad(&state[CAND_M]);
  // Idle: past the grid, a skipped step, or no candidates left for this workgroup (it
  // then neither clears nor flushes its bins).
  let skip = group >= params.groups || atomicLoad(&state[DONE]) == 1u ||
             (gathered && (params.base != 0u || group * WG >= m));
  if (!skip) {
    for (var b = t; b < bins; b += WG) {
      atomicStore(&local_hist[b], 0u);
    }
  }
  workgroupBarrier();
  if (!skip) {
    let stride = params.groups * WG;
    if (gathered) {
      for (var j = group * WG + t; j < m; j += stride) {
        visit(cand_keys[j], cand_index[j]);
      }
    } else {
      // Four vec4 loads in flight per iteration; the partial last vec4 apart.
      let full = params.n / PER_VEC;
      var v = group * WG + t;
      let base = params.base;
      for (; v + 3u * stride < full; v += 4u * stride) {
        let r0 = keys[v];
        let r1 = keys[v + stride];
        let r2 = keys[v + 2u * stride];
        let r3 = keys[v + 3u * stride];
        visit_vec(r0, base + PER_VEC * v);
        visit_vec(r1, base + PER_VEC * (v + stride));
        visit_vec(r2, base + PER_VEC * (v + 2u * stride));
        visit_vec(r3, base + PER_VEC * (v + 3u * stride));
      }
      for (; v < full; v += stride) {
        visit_vec(keys[v], base + PER_VEC * v);
      }
      if (group == 0u && t < params.n % PER_VEC) {
        visit(raw_in(keys[full], t), base + PER_VEC * full + t);
      }
    }
  }
  workgroupBarrier();
  if (!skip) {
    for (var b = t; b < bins; b += WG) {
      let c = atomicLoad(&local_hist[b]);
      if (c > 0u) {
        atomicAdd(&hist[STEP * BINS + b], c);
      }
    }
  }
}

// One workgroup: find the bin holding rank WANT (a scan of per-invocation bin sums, then
// one invocation walks its bins) and fix the digit.
@compute @workgroup_size(WG)
fn topk_pick(@builtin(local_invocation_index) t: u32) {
  let want = atomicLoad(&state[WANT]);  // read by all before one invocation writes it
  if (t == 0u) {
    skip_flag = atomicLoad(&state[DONE]);
  }
  if (workgroupUniformLoad(&skip_flag) == 1u) {
    return;
  }
  let step = params.step;
  let d = digit(step);
  let per = digit_bins(d) / WG;
  let base = step * BINS + t * per;
  var mine = 0u;
  for (var b = 0u; b < per; b++) {
    mine += atomicLoad(&hist[base + b]);
  }
  scan_sums[t] = mine;
  workgroupBarrier();
  for (var span = 1u; span < WG; span *= 2u) {
    var add = 0u;
    if (t >= span) {
      add = scan_sums[t - span];
    }
    workgroupBarrier();
    scan_sums[t] += add;
    workgroupBarrier();
  }
  let before = scan_sums[t] - mine;
  if (before < want && want <= scan_sums[t]) {
    var below = before;
    var bin = per - 1u;
    var count = 0u;
    for (var b = 0u; b < per; b++) {
      count = atomicLoad(&hist[base + b]);
      if (below + count >= want) {
        bin = b;
        break;
      }
      below += count;
    }
    bin += t * per;
    // The pass just run appended its matches to `cand` if it started with few enough.
    let matching = atomicLoad(&state[COUNT]);
    if (atomicLoad(&state[GATHERED]) == 0u && matching <= CAP) {
      atomicStore(&state[GATHERED], 1u);
      atomicStore(&state[CAND_M], matching);
    }
    let fixed = atomicLoad(&state[PREFIX]) | (bin << digit_shift(d));
    let rest = want - below;
    atomicStore(&state[WANT], rest);
    atomicStore(&state[COUNT], count);
    if (d == 2u) {  // the level's word is complete
      let level = step / 3u;
      atomicStore(&state[FIXED + level], fixed);
      atomicStore(&state[PREFIX], 0u);
      atomicStore(&state[LEVELS_FIXED], level + 1u);
      if (EARLY_STOP && rest == count && level + 1u < levels()) {
        atomicStore(&state[DONE], 1u);  // every element matching the words fixed is chosen
      }
    } else {
      atomicStore(&state[PREFIX], fixed);
    }
  }
}

fn take(raw: Raw, i: u32, upto: u32) {
  if (order_before(raw_key(raw), i, upto) != GREATER) {
    append(raw, i, false);
  }
}

@compute @workgroup_size(WG)
fn topk_take(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  load_fixed();
  let upto = atomicLoad(&state[LEVELS_FIXED]);
  let stride = params.groups * WG;
  if (atomicLoad(&state[GATHERED]) == 1u) {
    let m = select(atomicLoad(&state[CAND_M]), 0u, params.base != 0u);  // the first window's dispatch
    for (var j = group * WG + t; j < m; j += stride) {
      take(cand_keys[j], cand_index[j], upto);
    }
    return;
  }
  let full = params.n / PER_VEC;
  let base = params.base;
  var v = group * WG + t;
  for (; v + 3u * stride < full; v += 4u * stride) {
    let r0 = keys[v];
    let r1 = keys[v + stride];
    let r2 = keys[v + 2u * stride];
    let r3 = keys[v + 3u * stride];
    // unroll
    for (var c = 0u; c < PER_VEC; c++) {
      take(raw_in(r0, c), base + PER_VEC * v + c, upto);
      take(raw_in(r1, c), base + PER_VEC * (v + stride) + c, upto);
      take(raw_in(r2, c), base + PER_VEC * (v + 2u * stride) + c, upto);
      take(raw_in(r3, c), base + PER_VEC * (v + 3u * stride) + c, upto);
    }
  }
  for (; v < full; v += stride) {
    let r = keys[v];
    // unroll
    for (var c = 0u; c < PER_VEC; c++) {
      take(raw_in(r, c), base + PER_VEC * v + c, upto);
    }
  }
  if (group == 0u && t < params.n % PER_VEC) {
    take(raw_in(keys[full], t), base + PER_VEC * full + t, upto);
  }
}

// kth_smallest: the index of the element the select fixed (its value is then gathered).
@compute @workgroup_size(1)
fn select_kth() {
  out_index[0] = atomicLoad(&state[FIXED + KEY_WORDS]);
}

// -- the chosen, ranked: each one's rank among them by (key, index), best first -------
// RANK_ALL: the candidates are every element of `keys` (index = position; a short array
// ranked whole); else the k pairs the select wrote to `out`. An element whose rank is
// below params.k is written at its rank to ranked_keys / ranked_index. Tiles of WG pairs
// go through workgroup memory, every invocation comparing its element with each.
override RANK_ALL: bool = false;
@group(0) @binding(8) var<storage, read_write> ranked_keys: array<Raw>;
@group(0) @binding(9) var<storage, read_write> ranked_index: array<u32>;
var<workgroup> tile_key: array<OrderKey, WG>;
var<workgroup> tile_index: array<u32, WG>;

fn ranked_pair(q: u32) -> Raw {
  if (RANK_ALL) {
    return raw_at(q);
  }
  return out_keys[q];
}

@compute @workgroup_size(WG)
fn topk_rank(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let m = select(params.k, params.n, RANK_ALL);  // elements ranked
  let q = group_index(wid, nwg) * WG + t;
  let live = q < m;
  let qc = min(q, m - 1u);
  let raw = ranked_pair(qc);
  let key = raw_key(raw);
  let index = select(out_index[qc], qc, RANK_ALL);
  var rank = 0u;
  for (var base = 0u; base < m; base += WG) {
    let o = min(base + t, m - 1u);
    tile_key[t] = raw_key(ranked_pair(o));
    tile_index[t] = select(out_index[o], o, RANK_ALL);
    workgroupBarrier();
    let count = min(WG, m - base);
    for (var j = 0u; j < count; j++) {
      let other = tile_key[j];
      if (key_less(other, key) || (all(other == key) && tile_index[j] < index)) {
        rank += 1u;
      }
    }
    workgroupBarrier();
  }
  if (live && rank < params.k) {
    ranked_keys[rank] = raw;
    ranked_index[rank] = index;
  }
}
