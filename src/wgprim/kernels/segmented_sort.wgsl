// Segmented sort (CSR offsets) and batched sort of rows, for short segments: each
// workgroup sorts TILE / P segments of at most P keys (P a power of two) entirely in
// workgroup memory with a bitonic network over (key, position) pairs, padded with
// (all ones, all ones) which sorts after every real pair. Comparing the position makes
// the network stable. Segments are grouped by size bucket (one dispatch per P, as CUB's
// segmented sort does); a bucket lists its segment ids in `seg_list` (or slot = segment
// for rows of equal length). Longer segments go through two stable radix sorts
// (ops/segmented.py) and `segment_of` / `gather_sorted` below.
// Keys are compared through to_radix (kernels/radix_keys.wgsl after order_key.wgsl, joined before this file).

override WG: u32 = 256u;
override TILE: u32 = 2048u;  // keys per workgroup (a power of two, >= P)
override P: u32 = 64u;       // padded segment capacity (a power of two)

const VALUES_NONE: u32 = 0u;
const VALUES_GATHER: u32 = 1u;   // vals_out = vals_in at the key's old position
const VALUES_POSITION: u32 = 2u; // vals_out = the key's old position in its segment

struct Params {
  slots: u32,        // segments in this dispatch
  length: u32,       // uniform rows: their length
  uniform_rows: u32, // 1: segment s is [s * length, (s + 1) * length), slot = segment
  mode: u32,         // to_radix mode (kind | DESCENDING)
  value_mode: u32,
  keep: u32,         // > 0: write only the first `keep` of each segment, at segment * keep
  groups: u32,
  n: u32,            // segment_of / gather_sorted: elements
  width: u32,        // sort_small: blocks of `width` (a power of two <= P) are sorted, then
                     // merged keeping the first `width` (top-k); width = P sorts everything
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read> vals_in: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> seg_list: array<u32>;
@group(0) @binding(5) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals_out: array<u32>;

var<workgroup> sk: array<u32, TILE>;
var<workgroup> si: array<u32, TILE>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

fn segment_bounds(seg: u32) -> vec2<u32> {
  if (params.uniform_rows == 1u) {
    return vec2<u32>(seg * params.length, seg * params.length + params.length);
  }
  return vec2<u32>(offsets[seg], offsets[seg + 1u]);
}

fn slot_segment(slot: u32) -> u32 {
  if (params.uniform_rows == 1u) {
    return slot;
  }
  return seg_list[slot];
}

// (a.key, a.pos) > (b.key, b.pos)
fn after(ka: u32, ia: u32, kb: u32, ib: u32) -> bool {
  return ka > kb || (ka == kb && ia > ib);
}

@compute @workgroup_size(WG)
fn sort_small(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let per_group = TILE / P;
  for (var e = t; e < TILE; e += WG) {
    let slot = group * per_group + e / P;
    let pos = e % P;
    var key = 0xffffffffu;
    var tie = 0xffffffffu;
    if (slot < params.slots) {
      let b = segment_bounds(slot_segment(slot));
      if (pos < b.y - b.x) {
        key = to_radix(keys_in[b.x + pos], params.mode);
        tie = pos;
      }
    }
    sk[e] = key;
    si[e] = tie;
  }
  workgroupBarrier();
  // Bitonic network on every width-block at once; blocks end ascending.
  let width = params.width;
  for (var k = 2u; k <= width; k = k << 1u) {
    for (var j = k >> 1u; j > 0u; j = j >> 1u) {
      for (var q = t; q < TILE / 2u; q += WG) {
        let i = 2u * q - (q & (j - 1u));
        let l = i + j;
        let ascending = (i & k & (width - 1u)) == 0u;
        let ka = sk[i];
        let ia = si[i];
        let kb = sk[l];
        let ib = si[l];
        if (after(ka, ia, kb, ib) == ascending) {
          sk[i] = kb;
          si[i] = ib;
          sk[l] = ka;
          si[l] = ia;
        }
      }
      workgroupBarrier();
    }
  }
  // Top-k (width < P): merge sorted blocks pairwise inside each P-block, keeping the
  // first `width` of each pair (the bitonic top-k of Shanbhag, Pirk and Madden, 2018):
  // the elementwise min of block A and block B reversed holds the `width` smallest of
  // both as a bitonic sequence, which a bitonic merge sorts. Results stay at the first
  // block of the pair; the work halves every level.
  for (var span = width; span < P; span = span << 1u) {
    let merges = TILE / (2u * span);
    for (var q = t; q < merges * width; q += WG) {
      let a = (q / width) * 2u * span + q % width;
      let b = (q / width) * 2u * span + span + (width - 1u - q % width);
      if (after(sk[a], si[a], sk[b], si[b])) {
        sk[a] = sk[b];
        si[a] = si[b];
      }
    }
    workgroupBarrier();
    for (var j = width >> 1u; j > 0u; j = j >> 1u) {
      for (var q = t; q < merges * (width >> 1u); q += WG) {
        let r = q % (width >> 1u);
        let i = (q / (width >> 1u)) * 2u * span + 2u * r - (r & (j - 1u));
        let l = i + j;
        let ka = sk[i];
        let ia = si[i];
        let kb = sk[l];
        let ib = si[l];
        if (after(ka, ia, kb, ib)) {
          sk[i] = kb;
          si[i] = ib;
          sk[l] = ka;
          si[l] = ia;
        }
      }
      workgroupBarrier();
    }
  }
  for (var e = t; e < TILE; e += WG) {
    let slot = group * per_group + e / P;
    let pos = e % P;
    if (slot < params.slots) {
      let seg = slot_segment(slot);
      let b = segment_bounds(seg);
      let len = b.y - b.x;
      var base = b.x;
      var limit = len;
      if (params.keep > 0u) {
        base = seg * params.keep;
        limit = min(len, params.keep);
      }
      if (pos < limit) {
        let tie = si[e];
        keys_out[base + pos] = keys_in[b.x + tie];  // the key's own bits, from its position
        if (params.value_mode == VALUES_GATHER) {
          vals_out[base + pos] = vals_in[b.x + tie];
        } else if (params.value_mode != VALUES_NONE) {
          vals_out[base + pos] = tie;
        }
      }
    }
  }
}

// Long segments, step 2 (after a stable argsort `perm` of the keys of the region):
// the segment of the element each sorted position came from (keys_in holds perm).
// offsets are relative to the region; vals_out receives the segment ids.
@compute @workgroup_size(WG)
fn segment_of(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
  let j = group_index(wid, nwg) * WG + t;
  if (j >= params.n) {
    return;
  }
  let p = keys_in[j];
  if (params.uniform_rows == 1u) {
    vals_out[j] = p / params.length;
    return;
  }
  // The last s with offsets[s] <= p (offsets[0] = 0, offsets[slots] = n > p).
  var lo = 0u;
  var hi = params.slots;
  while (hi - lo > 1u) {
    let mid = (lo + hi) / 2u;
    if (offsets[mid] <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  vals_out[j] = lo;
}

// Long segments, step 4 (after a stable argsort `order` of the segment ids): position j
// of the result takes the element perm[order[j]]. Bindings reused: keys_in = the region's
// keys, vals_in = values, seg_list = perm, offsets = order.
@group(0) @binding(7) var<storage, read> seg_ids: array<u32>;
@group(0) @binding(8) var<storage, read> seg_starts: array<u32>;

@compute @workgroup_size(WG)
fn gather_sorted(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let j = group_index(wid, nwg) * WG + t;
  if (j >= params.n) {
    return;
  }
  let q = offsets[j];
  let orig = seg_list[q];
  keys_out[j] = keys_in[orig];  // the key's own bits
  if (params.value_mode == VALUES_GATHER) {
    vals_out[j] = vals_in[orig];
  } else if (params.value_mode == VALUES_POSITION) {
    var start = seg_ids[q] * params.length;
    if (params.uniform_rows == 0u) {
      start = seg_starts[seg_ids[q]];
    }
    vals_out[j] = orig - start;
  }
}

// Segmented sort chains (ops/lexsort.py), after the last step (the stable sort by segment):
// each sorted element's index inside its segment, vals_out[j] = keys_in[j] (its position,
// from the chain's permutation) minus the start of its segment seg_ids[j] (rows: seg *
// length; CSR: seg_starts = the offsets relative to the region).
@compute @workgroup_size(WG)
fn segment_positions(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) t: u32) {
  let j = group_index(wid, nwg) * WG + t;
  if (j >= params.n) {
    return;
  }
  let s = seg_ids[j];
  var start = s * params.length;
  if (params.uniform_rows == 0u) {
    start = seg_starts[s];
  }
  vals_out[j] = keys_in[j] - start;
}
