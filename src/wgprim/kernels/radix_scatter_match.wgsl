// Radix scatter ranked by subgroup match (the path for adapters with subgroups).
//
// Joined after radix_sort.wgsl (its Params, bindings, load_key, digit_of, group_index and
// the count kernel); the preamble (ops/radix_sort.py) defines WG, ITEMS and MAX_SG, the
// most subgroups a workgroup may have (the host checks the adapter's subgroups fit).
// Needs the device's subgroup feature (naga rejects the `enable subgroups;` directive).
//
// One dispatch, each workgroup on its own tile of TILE keys; nothing is read that another
// workgroup writes in this dispatch (offsets come from the scan dispatch before it).
//
//   1. Subgroup s owns the tile positions s * ITEMS * size .. (s + 1) * ITEMS * size - 1;
//      its lane l loads position s * ITEMS * size + j * size + l for j = 0 .. ITEMS-1
//      (coalesced loads, no transpose). Position order is (s, j, l) order.
//   2. For j = 0, 1, ...: 8 ballots on the digit's bits give each lane the mask of the
//      lanes holding the same digit ("peers"). Its rank among them is the number of peers
//      on lower lanes; the lowest peer adds the peers' count to the subgroup's counter of
//      that digit (a workgroup atomic, which returns the count before) and shuffles the old
//      count to its peers. rank = old count + peers below: the key's place among the
//      subgroup's keys with that digit, in position order.
//   3. One exclusive sum over the counters in (digit, subgroup) order gives where each
//      (digit, subgroup) run starts in the tile's stable order; key position = run start +
//      rank. Digit starts give digit_base[d] = global offset of the tile's digit d minus
//      its start in the tile.
//   4. The keys go to their tile positions in workgroup memory, then invocation t writes
//      tile positions k * WG + t to digit_base[digit] + position: a digit's run is written
//      by adjacent invocations to adjacent addresses.
//
// Counters: 256 digits x subgroups, u16 halves (digit d of subgroup s in word s * 128 +
// d % 128, half d / 128; a half holds at most TILE < 65536, so halves never carry). They
// share one array with the tile exchange (counters are done before the keys move in).
//
// Subgroups are named by subgroup_id and lanes by subgroup_invocation_id, so subgroups need
// not be consecutive invocations; all subgroups of the workgroup must have the same size.

const MATCH_TILE: u32 = WG * ITEMS;
const COUNTER_WORDS: u32 = 128u * MAX_SG;
const SHARED_WORDS: u32 = max(MATCH_TILE, COUNTER_WORDS);

var<workgroup> match_shared: array<atomic<u32>, SHARED_WORDS>;
var<workgroup> match_digit_base: array<u32, RADIX>;
var<workgroup> match_subgroup_totals: array<u32, MAX_SG>;

var<private> match_keys: array<u32, ITEMS>;
var<private> match_vals: array<u32, ITEMS>;
var<private> match_ranks: array<u32, ITEMS>;
var<private> match_dests: array<u32, ITEMS>;

// The bits of the lanes below `lane` in a ballot-shaped mask.
fn lanes_below(lane: u32) -> vec4<u32> {
  var m = vec4<u32>(0u);
  for (var i = 0u; i < 4u; i++) {
    let lo = 32u * i;
    if (lane >= lo + 32u) {
      m[i] = 0xffffffffu;
    } else if (lane > lo) {
      m[i] = (1u << (lane - lo)) - 1u;
    }
  }
  return m;
}

fn lowest_lane(m: vec4<u32>) -> u32 {
  return select(select(select(96u + firstTrailingBit(m.w), 64u + firstTrailingBit(m.z), m.z != 0u),
                       32u + firstTrailingBit(m.y), m.y != 0u),
                firstTrailingBit(m.x), m.x != 0u);
}

fn ones(m: vec4<u32>) -> u32 {
  let c = countOneBits(m);
  return c.x + c.y + c.z + c.w;
}

// Exclusive sum over the workgroup in (subgroup, lane) order: (prefix, total).
fn match_exclusive_sum(sid: u32, lane: u32, nsg: u32, v: u32) -> vec2<u32> {
  let prefix = subgroupExclusiveAdd(v);
  let sum = subgroupAdd(v);
  if (lane == 0u) {
    match_subgroup_totals[sid] = sum;
  }
  workgroupBarrier();
  var before = 0u;
  var total = 0u;
  for (var s = 0u; s < nsg; s++) {
    let x = match_subgroup_totals[s];
    before += select(0u, x, s < sid);
    total += x;
  }
  return vec2<u32>(before + prefix, total);
}

// Values in the same layout as the keys (pairs only).
fn match_load_vals(sid: u32, lane: u32, size: u32, base: u32, valid: u32) {
  let chunk = sid * ITEMS * size;
  for (var j = 0u; j < ITEMS; j++) {
    let p = chunk + j * size + lane;
    var v = 0u;
    if ((params.flags & INDEX_VALUES) != 0u) {
      v = base + p;
    } else if (p < valid) {
      v = vals_in[base + p];
    }
    match_vals[j] = v;
  }
}

// Steps 1-3: loads the tile, leaves each key's tile position in match_ranks
// and digit_base filled.
fn match_rank_tile(t: u32, sid: u32, lane: u32, size: u32, nsg: u32, group: u32, base: u32,
                   valid: u32) {
  // Global offsets of the digits this invocation will rebase (fetched early).
  let u = sid * size + lane;
  var offset_lo = 0u;
  var offset_hi = 0u;
  if (u < 128u) {
    offset_lo = offsets[u * params.tiles + group];
    offset_hi = offsets[(u + 128u) * params.tiles + group];
  }
  for (var w = t; w < 128u * nsg; w += WG) {
    atomicStore(&match_shared[w], 0u);
  }
  let chunk = sid * ITEMS * size;
  for (var j = 0u; j < ITEMS; j++) {
    let p = chunk + j * size + lane;
    var key = 0xffffffffu;  // past the end: the largest key, ranked after every real key
    if (p < valid) {
      key = load_key(base + p);
    }
    match_keys[j] = key;
  }
  workgroupBarrier();
  let below = lanes_below(lane);
  let counters = sid * 128u;
  for (var j = 0u; j < ITEMS; j++) {
    let d = digit_of(match_keys[j]);
    var peers = subgroupBallot(true);
    for (var b = 0u; b < 8u; b++) {
      let on = ((d >> b) & 1u) != 0u;
      let ballot = subgroupBallot(on);
      peers = peers & select(~ballot, ballot, on);
    }
    let lower = peers & below;
    let half = (d >> 7u) * 16u;
    var old = 0u;
    if (all(lower == vec4<u32>(0u))) {
      old = atomicAdd(&match_shared[counters + (d & 127u)], ones(peers) << half);
    }
    let first = subgroupShuffle(old, lowest_lane(peers));
    match_ranks[j] = ((first >> half) & 0xffffu) + ones(lower);
  }
  workgroupBarrier();
  // Column c < 128 (c = u) sums digits c and c + 128 of every subgroup (one packed word
  // per subgroup); the packed exclusive sum gives both digits' starts in the tile.
  var total = 0u;
  if (u < 128u) {
    for (var s = 0u; s < nsg; s++) {
      total += atomicLoad(&match_shared[s * 128u + u]);
    }
  }
  let scanned = match_exclusive_sum(sid, lane, nsg, total);
  // Digits 128.. start after all digits below 128 (the low halves' total).
  let start = scanned.x + ((scanned.y & 0xffffu) << 16u);
  if (u < 128u) {
    var run = start;
    for (var s = 0u; s < nsg; s++) {
      let c = atomicLoad(&match_shared[s * 128u + u]);
      atomicStore(&match_shared[s * 128u + u], run);
      run += c;
    }
    match_digit_base[u] = offset_lo - (start & 0xffffu);
    match_digit_base[u + 128u] = offset_hi - (start >> 16u);
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    let d = digit_of(match_keys[j]);
    let run_start = atomicLoad(&match_shared[counters + (d & 127u)]) >> ((d >> 7u) * 16u);
    match_ranks[j] += run_start & 0xffffu;
  }
  workgroupBarrier();  // every counter is read before the keys overwrite them
}

// Step 4 for the keys: fills match_dests for the tile positions k * WG + t.
fn match_write_keys(t: u32, valid: u32) {
  for (var j = 0u; j < ITEMS; j++) {
    atomicStore(&match_shared[match_ranks[j]], match_keys[j]);
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    if (p < valid) {
      var key = atomicLoad(&match_shared[p]);
      let dest = match_digit_base[digit_of(key)] + p;
      match_dests[k] = dest;
      if ((params.flags & TRANSFORM_OUT) != 0u) {
        key = from_radix(key, params.mode);
      }
      keys_out[dest] = key;
    }
  }
}

@compute @workgroup_size(WG)
fn radix_scatter_match_keys(@builtin(workgroup_id) wid: vec3<u32>,
                            @builtin(num_workgroups) nwg: vec3<u32>,
                            @builtin(local_invocation_index) t: u32,
                            @builtin(subgroup_id) sid: u32,
                            @builtin(subgroup_invocation_id) lane: u32,
                            @builtin(subgroup_size) size: u32,
                            @builtin(num_subgroups) nsg: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let base = group * MATCH_TILE;
  let valid = min(MATCH_TILE, params.n - base);
  match_rank_tile(t, sid, lane, size, nsg, group, base, valid);
  match_write_keys(t, valid);
}

@compute @workgroup_size(WG)
fn radix_scatter_match_pairs(@builtin(workgroup_id) wid: vec3<u32>,
                             @builtin(num_workgroups) nwg: vec3<u32>,
                             @builtin(local_invocation_index) t: u32,
                             @builtin(subgroup_id) sid: u32,
                             @builtin(subgroup_invocation_id) lane: u32,
                             @builtin(subgroup_size) size: u32,
                             @builtin(num_subgroups) nsg: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let base = group * MATCH_TILE;
  let valid = min(MATCH_TILE, params.n - base);
  match_load_vals(sid, lane, size, base, valid);
  match_rank_tile(t, sid, lane, size, nsg, group, base, valid);
  match_write_keys(t, valid);
  // The values take the same move as the keys.
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    atomicStore(&match_shared[match_ranks[j]], match_vals[j]);
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    if (p < valid) {
      vals_out[match_dests[k]] = atomicLoad(&match_shared[p]);
    }
  }
}

// How many subgroups a workgroup of WG invocations has on this adapter (the host checks
// it is at most MAX_SG before choosing this path): the maximum over invocations.
@compute @workgroup_size(WG)
fn radix_subgroup_count(@builtin(num_subgroups) nsg: u32) {
  atomicMax(&key_bits[0], nsg);
}
