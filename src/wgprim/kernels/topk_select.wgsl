// Radix select for the top k of one long array (ops/topk.py): the k-th smallest to_radix
// key (kernels/radix_keys.wgsl after order_key.wgsl, joined before this file; descending
// mode for the largest), found digit by digit without sorting, then only the k chosen
// (key, index) pairs are written for a small sort.
//
// Six digit steps, each a pass (topk_pass, many workgroups) then a pick (topk_pick, one
// workgroup); STEP (0..5) is a pipeline constant:
//   steps 0, 1, 2: key bits 31..20, 19..8, 7..0 (12, 12 and 8 bits);
//   steps 3, 4, 5: the same digits of the index, among the ties with the k-th key, when
//   only some of them are taken (skipped, pass and pick, when every tie is taken).
// A pass histograms the current digit of the elements matching the prefix fixed so far
// (workgroup atomics, one global atomicAdd per non-empty bin); the pick finds the bin of
// the rank still wanted and fixes the digit.
// Candidates: the first pass that starts with at most CAP elements matching the prefix
// appends them, (raw key, index), to `cand` while histogramming, and appends every
// element already below the prefix (fewer than k) to `out`. Later passes read only
// `cand`: a long array is read in full two or three times (two for spread values, three
// when the top 12 bits are crowded, as floats in [0, 1)), not six. Only when even the
// final bucket holds more than CAP elements (heavy ties) do the index steps and the take
// read the whole array again.
// topk_take appends the chosen elements that are not in `out` yet: key below the k-th,
// or equal to it at an index up to the last tie taken.
// Every pass reads the state the previous dispatches left; appends only claim slots
// (atomicAdd on a counter): the order is fixed by the sort that follows.

override WG: u32 = 256u;
override MODE: u32 = 0u;     // to_radix mode (kind | DESCENDING)
override STEP: u32 = 0u;     // digit step 0..5
override CAP: u32 = 16384u;  // candidate capacity

const BINS: u32 = 4096u;     // per step in `hist` (12-bit digits; the last key digit uses 256)

// state words
const PREFIX: u32 = 0u;      // bits fixed so far: of the key (steps 0-2), of the index (3-5)
const WANT: u32 = 1u;        // rank (1-based) still wanted among the elements matching PREFIX
const COUNT: u32 = 2u;       // elements matching PREFIX
const KEY: u32 = 3u;         // the k-th key, after step 2
const ALL_TIES: u32 = 4u;    // 1: every element equal to KEY is taken
const LAST: u32 = 5u;        // the largest index taken among the ties
const GATHERED: u32 = 6u;    // 1: the elements matching PREFIX are in `cand`
const CAND_M: u32 = 7u;      // how many: written by the pick after the pass that gathered
const STATE_WORDS: u32 = 16u;
// The append counters live after the histograms in `hist` (accumulated, never read back
// in the dispatch that adds to them).
const CAND_N: u32 = 6u * BINS;
const OUT_N: u32 = 6u * BINS + 1u;

struct Params {
  n: u32,
  k: u32,
  groups: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> cand_keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> cand_index: array<u32>;
@group(0) @binding(6) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(7) var<storage, read_write> out_index: array<u32>;

// topk_pass uses exactly 16 KiB, the WebGPU minimum of workgroup memory; topk_pick the rest.
var<workgroup> local_hist: array<atomic<u32>, BINS>;
var<workgroup> scan_sums: array<u32, WG>;
var<workgroup> skip_flag: u32;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

fn digit(step: u32) -> u32 { return step % 3u; }
fn digit_shift(d: u32) -> u32 { return select(select(0u, 8u, d == 1u), 20u, d == 0u); }
fn digit_bins(d: u32) -> u32 { return select(4096u, 256u, d == 2u); }
// The bits above digit d (fixed by the earlier steps).
fn digit_high(d: u32) -> u32 { return select(select(0xffffff00u, 0xfff00000u, d == 1u), 0u, d == 0u); }

// -- the per-element work of a pass, its context in private variables ---------------
var<private> c_prefix: u32;
var<private> c_kth: u32;
var<private> c_gather: bool;

fn append(raw: u32, i: u32, to_cand: bool) {
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

fn visit(raw: u32, i: u32) {
  let d = digit(STEP);
  let high = digit_high(d);
  let key = to_radix(raw, MODE);
  var subject = key;
  var tie = true;
  if (STEP >= 3u) {
    subject = i;
    tie = key == c_kth;
  }
  if (tie && ((subject ^ c_prefix) & high) == 0u) {
    atomicAdd(&local_hist[(subject >> digit_shift(d)) & (digit_bins(d) - 1u)], 1u);
    if (c_gather) {
      append(raw, i, true);
    }
  } else if (c_gather) {
    // Below the prefix: chosen for sure (there are fewer than k such elements).
    var below = (key & high) < c_prefix;
    if (STEP >= 3u) {
      below = key < c_kth || (tie && (i & high) < c_prefix);
    }
    if (below) {
      append(raw, i, false);
    }
  }
}

fn visit4(raw: vec4<u32>, v: u32) {
  visit(raw.x, 4u * v);
  visit(raw.y, 4u * v + 1u);
  visit(raw.z, 4u * v + 2u);
  visit(raw.w, 4u * v + 3u);
}

@compute @workgroup_size(WG)
fn topk_clear(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i < 6u * BINS + 2u) {
    atomicStore(&hist[i], 0u);
  }
  if (i < STATE_WORDS) {
    var value = 0u;
    if (i == WANT) {
      value = params.k;
    } else if (i == COUNT) {
      value = params.n;
    } else if (i == LAST) {
      value = 0xffffffffu;
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
  c_kth = atomicLoad(&state[KEY]);
  let gathered = atomicLoad(&state[GATHERED]) == 1u;
  c_gather = !gathered && atomicLoad(&state[COUNT]) <= CAP;
  let m = atomicLoad(&state[CAND_M]);
  // Idle: past the grid, a skipped index step, or no candidates left for this workgroup
  // (it then neither clears nor flushes its bins).
  let skip = group >= params.groups || (STEP >= 3u && atomicLoad(&state[ALL_TIES]) == 1u) ||
             (gathered && group * WG >= m);
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
      let full = params.n / 4u;
      var v = group * WG + t;
      for (; v + 3u * stride < full; v += 4u * stride) {
        let r0 = keys[v];
        let r1 = keys[v + stride];
        let r2 = keys[v + 2u * stride];
        let r3 = keys[v + 3u * stride];
        visit4(r0, v);
        visit4(r1, v + stride);
        visit4(r2, v + 2u * stride);
        visit4(r3, v + 3u * stride);
      }
      for (; v < full; v += stride) {
        visit4(keys[v], v);
      }
      if (group == 0u && t < params.n % 4u) {
        let i = 4u * full + t;
        visit(keys[full][t], i);
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
    skip_flag = select(0u, 1u, STEP >= 3u && atomicLoad(&state[ALL_TIES]) == 1u);
  }
  if (workgroupUniformLoad(&skip_flag) == 1u) {
    return;
  }
  let d = digit(STEP);
  let per = digit_bins(d) / WG;
  let base = STEP * BINS + t * per;
  var mine = 0u;
  for (var b = 0u; b < per; b++) {
    mine += atomicLoad(&hist[base + b]);
  }
  scan_sums[t] = mine;
  workgroupBarrier();
  for (var step = 1u; step < WG; step *= 2u) {
    var add = 0u;
    if (t >= step) {
      add = scan_sums[t - step];
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
    if (STEP == 2u) {
      atomicStore(&state[KEY], fixed);
      atomicStore(&state[ALL_TIES], select(0u, 1u, rest == count));
      atomicStore(&state[PREFIX], 0u);
    } else if (STEP == 5u) {
      atomicStore(&state[LAST], fixed);
    } else {
      atomicStore(&state[PREFIX], fixed);
    }
  }
}

fn take(raw: u32, i: u32, all_ties: bool, last: u32) {
  let key = to_radix(raw, MODE);
  if (key < c_kth || (key == c_kth && (all_ties || i <= last))) {
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
  c_kth = atomicLoad(&state[KEY]);
  let all_ties = atomicLoad(&state[ALL_TIES]) == 1u;
  let last = atomicLoad(&state[LAST]);
  let stride = params.groups * WG;
  if (atomicLoad(&state[GATHERED]) == 1u) {
    let m = atomicLoad(&state[CAND_M]);
    for (var j = group * WG + t; j < m; j += stride) {
      take(cand_keys[j], cand_index[j], all_ties, last);
    }
    return;
  }
  let full = params.n / 4u;
  var v = group * WG + t;
  for (; v + 3u * stride < full; v += 4u * stride) {
    let r0 = keys[v];
    let r1 = keys[v + stride];
    let r2 = keys[v + 2u * stride];
    let r3 = keys[v + 3u * stride];
    for (var c = 0u; c < 4u; c++) {
      take(r0[c], 4u * v + c, all_ties, last);
      take(r1[c], 4u * (v + stride) + c, all_ties, last);
      take(r2[c], 4u * (v + 2u * stride) + c, all_ties, last);
      take(r3[c], 4u * (v + 3u * stride) + c, all_ties, last);
    }
  }
  for (; v < full; v += stride) {
    let r = keys[v];
    for (var c = 0u; c < 4u; c++) {
      take(r[c], 4u * v + c, all_ties, last);
    }
  }
  if (group == 0u && t < params.n % 4u) {
    take(keys[full][t], 4u * full + t, all_ties, last);
  }
}
