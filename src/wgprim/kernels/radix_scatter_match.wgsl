// Radix scatter ranked by subgroup match (the path for adapters with subgroups).
//
// Joined after radix_sort.wgsl (its Params, bindings, held, held_digit, stored, pad_bits,
// group_index and the count kernel); the preamble (ops/radix_sort.py) defines WG (256, 384 or 512: at
// least one invocation per digit), ITEMS, MAX_SG (the workgroup's subgroups) and the
// variants SHUFFLE and SERIAL_RANK (below).
// Needs the device's subgroup feature (naga rejects the `enable subgroups;` directive).
//
// One dispatch, each workgroup on its own tile of MATCH_TILE keys; nothing is read that another
// workgroup writes in this dispatch (offsets come from the scan dispatch before it).
//
//   1. Subgroup s owns the tile positions s * ITEMS * size .. (s + 1) * ITEMS * size - 1;
//      its lane l loads position s * ITEMS * size + j * size + l for j = 0 .. ITEMS-1
//      (coalesced loads, no transpose). Position order is (s, j, l) order.
//   2. For every item j: 8 ballots on the digit's bits give each lane the mask of the
//      lanes holding the same digit ("peers"). Its rank among them is the number of peers
//      on lower lanes; the lowest peer adds the peers' count to the subgroup's counter of
//      that digit (a workgroup atomicAdd, which returns the count before). All items'
//      atomics are issued first, then each item's lowest peer shuffles the old count to
//      its peers: rank = old count + peers below, the key's place among the subgroup's
//      keys with that digit, in position order (rank_issue_item, rank_finish_item).
//   3. One exclusive sum over the counters in (digit, subgroup) order gives where each
//      (digit, subgroup) run starts in the tile's stable order; key position = run start +
//      rank. Digit starts give digit_base[d] = global offset of the tile's digit d minus
//      its start in the tile.
//   4. The keys go to their tile positions in workgroup memory, then invocation t writes
//      tile positions k * WG + t to digit_base[digit] + position: a digit's run is written
//      by adjacent invocations to adjacent addresses. (SHUFFLE = false, measured: each
//      invocation writes its own keys to digit_base[digit] + rank, no second move.)
//
// SERIAL_RANK = true ranks item after item (each item's shuffle before the next item's
// atomic: exact, slower than issuing every item's atomics together).
//
// Counters: 256 digits x subgroups, u16 halves (digit d of subgroup s in word s * 128 +
// d % 128, half d / 128; a half holds at most TILE < 65536, so halves never carry). They
// share one array with the tile exchange (counters are done before the keys move in).
//
// Subgroups are named by subgroup_id and lanes by subgroup_invocation_id, so subgroups need
// not be consecutive invocations; all subgroups of the workgroup must have the same size.

const MATCH_TILE: u32 = WG * ITEMS;
const COUNTER_WORDS: u32 = 128u * MAX_SG;
// The counters, then one word per invocation (rank_issue_item), share the tile's room.
const SHARED_WORDS: u32 = max(MATCH_TILE, COUNTER_WORDS + WG);

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

// ---- per-key steps ---------------------------------------------------------------------
// Each step on one of an invocation's ITEMS keys is a function of a constant item index j,
// called once per item by the for_* functions below (ITEMS is 4, 8, ... or 24). A loop over
// j indexing the private arrays was 2.3x slower on an NVIDIA H200 (dynamically indexed
// arrays go to local memory); with constant indices the keys stay in registers.
// Context of the calling invocation (set once by match_rank_tile):
var<private> m_t: u32;         // local_invocation_index
var<private> m_lane: u32;      // subgroup_invocation_id
var<private> m_size: u32;      // subgroup_size
var<private> m_chunk: u32;     // the subgroup's first tile position
var<private> m_base: u32;      // the tile's first key
var<private> m_valid: u32;     // keys in the tile
var<private> m_counters: u32;  // the subgroup's first counter word
var<private> m_below: vec4<u32>;

fn tile_position(j: u32) -> u32 {
  return m_chunk + j * m_size + m_lane;
}

fn load_key_item(j: u32) {
  let p = tile_position(j);
  // Past the end: pad_bits, whose key is the largest, ranked after every real key. The
  // load (clamped into the binding) is made anyway: a select, not a branch, so that a
  // tile's loads go out together (2^26 keys on an H200: 2.949 against 3.001 ms with a
  // branch; the same for the values of pairs lost, 3.484 against 3.384 ms, so those keep
  // their branch; 2026-12-01).
  let key = held(keys_in[min(m_base + p, arrayLength(&keys_in) - 1u)]);
  match_keys[j] = select(pad_bits(), key, p < m_valid);
}

// Values in the same layout as the keys (pairs only).
fn load_val_item(j: u32) {
  let p = tile_position(j);
  var v = 0u;
  if ((PASS_FLAGS & INDEX_VALUES) != 0u) {
    v = params.first + m_base + p - index_origin;
  } else if (p < m_valid) {
    v = vals_in[m_base + p];
  }
  match_vals[j] = v;
}

// Keeps the lanes of `peers` whose digit has the same bit b as d.
fn same_bit(peers: vec4<u32>, d: u32, b: u32) -> vec4<u32> {
  let on = ((d >> b) & 1u) != 0u;
  let ballot = subgroupBallot(on);
  return peers & select(~ballot, ballot, on);
}

// The lanes of the subgroup whose digit is d (each lane passing its own d): 8 ballots.
fn peers_of(d: u32) -> vec4<u32> {
  var peers = subgroupBallot(true);
  peers = same_bit(peers, d, 0u);
  peers = same_bit(peers, d, 1u);
  peers = same_bit(peers, d, 2u);
  peers = same_bit(peers, d, 3u);
  peers = same_bit(peers, d, 4u);
  peers = same_bit(peers, d, 5u);
  peers = same_bit(peers, d, 6u);
  peers = same_bit(peers, d, 7u);
  return peers;
}

// Step 2 for item j, one item at a time (all items j' < j of this subgroup are ranked
// before; SERIAL_RANK).
fn rank_item(j: u32) {
  let d = held_digit(match_keys[j]);
  let peers = peers_of(d);
  let lower = peers & m_below;
  let half = (d >> 7u) * 16u;
  var old = 0u;
  if (all(lower == vec4<u32>(0u))) {
    old = atomicAdd(&match_shared[m_counters + (d & 127u)], ones(peers) << half);
  }
  let first = subgroupShuffle(old, lowest_lane(peers));
  match_ranks[j] = ((first >> half) & 0xffffu) + ones(lower);
}

// Step 2 in two halves: every item's ballots and counter atomic first, then every item's
// shuffle, so that the subgroup's atomics are in flight together instead of one after
// another (H200, 2^26 keys, multi-pass: 0.449 against 0.472 ms a scatter pass). Every
// lane takes the same atomicAdd, without a branch: the lowest peer adds the peers' count
// to its digit's counter, the others add 0 to a word of their own
// (match_shared[COUNTER_WORDS + t], unused until the tile moves in). The order of two
// items' adds to one counter is the order of the subgroup's atomic instructions, item j's
// before item j+1's.
fn rank_issue_item(j: u32) {
  let d = held_digit(match_keys[j]);
  let peers = peers_of(d);
  let lower = peers & m_below;
  let lowest = all(lower == vec4<u32>(0u));
  let word = select(COUNTER_WORDS + m_t, m_counters + (d & 127u), lowest);
  let half = (d >> 7u) * 16u;
  match_ranks[j] = atomicAdd(&match_shared[word], select(0u, ones(peers) << half, lowest));
  match_dests[j] = (lowest_lane(peers) << 16u) | ones(lower);  // scratch until the writes
}

fn rank_finish_item(j: u32) {
  let half = (held_digit(match_keys[j]) >> 7u) * 16u;
  let first = subgroupShuffle(match_ranks[j], match_dests[j] >> 16u);
  match_ranks[j] = ((first >> half) & 0xffffu) + (match_dests[j] & 0xffffu);
}

// Step 3 for item j: rank within the subgroup's digit run + where that run starts.
fn place_item(j: u32) {
  let d = held_digit(match_keys[j]);
  let run_start = atomicLoad(&match_shared[m_counters + (d & 127u)]) >> ((d >> 7u) * 16u);
  match_ranks[j] += run_start & 0xffffu;
}

fn move_key_item(j: u32) {
  atomicStore(&match_shared[match_ranks[j]], match_keys[j]);
}

fn move_val_item(j: u32) {
  atomicStore(&match_shared[match_ranks[j]], match_vals[j]);
}

// Step 4 for sorted tile position k * WG + t.
fn write_key_item(k: u32) {
  let p = k * WG + m_t;
  if (p < m_valid) {
    let key = atomicLoad(&match_shared[p]);
    let dest = match_digit_base[held_digit(key)] + p;
    match_dests[k] = dest;
    store_key(dest, stored(key));
  }
}

fn write_val_item(k: u32) {
  let p = k * WG + m_t;
  if (p < m_valid) {
    store_val(match_dests[k], atomicLoad(&match_shared[p]));
  }
}

// Step 4 without the move through workgroup memory (SHUFFLE = false): item j straight
// from the invocation that holds it.
fn write_key_direct_item(j: u32) {
  if (tile_position(j) < m_valid) {
    let key = match_keys[j];
    let dest = match_digit_base[held_digit(key)] + match_ranks[j];
    match_dests[j] = dest;
    store_key(dest, stored(key));
  }
}

fn write_val_direct_item(j: u32) {
  if (tile_position(j) < m_valid) {
    store_val(match_dests[j], match_vals[j]);
  }
}

fn for_load_key() {
  load_key_item(0u); load_key_item(1u); load_key_item(2u); load_key_item(3u);
  if (ITEMS > 4u) { load_key_item(4u); load_key_item(5u); load_key_item(6u); load_key_item(7u); }
  if (ITEMS > 8u) { load_key_item(8u); load_key_item(9u); load_key_item(10u); load_key_item(11u); }
  if (ITEMS > 12u) { load_key_item(12u); load_key_item(13u); load_key_item(14u); load_key_item(15u); }
  if (ITEMS > 16u) { load_key_item(16u); load_key_item(17u); load_key_item(18u); load_key_item(19u); }
  if (ITEMS > 20u) { load_key_item(20u); load_key_item(21u); load_key_item(22u); load_key_item(23u); }
}

fn for_load_val() {
  load_val_item(0u); load_val_item(1u); load_val_item(2u); load_val_item(3u);
  if (ITEMS > 4u) { load_val_item(4u); load_val_item(5u); load_val_item(6u); load_val_item(7u); }
  if (ITEMS > 8u) { load_val_item(8u); load_val_item(9u); load_val_item(10u); load_val_item(11u); }
  if (ITEMS > 12u) { load_val_item(12u); load_val_item(13u); load_val_item(14u); load_val_item(15u); }
  if (ITEMS > 16u) { load_val_item(16u); load_val_item(17u); load_val_item(18u); load_val_item(19u); }
  if (ITEMS > 20u) { load_val_item(20u); load_val_item(21u); load_val_item(22u); load_val_item(23u); }
}

fn for_rank() {
  if (!SERIAL_RANK) {
    for_rank_issue();
    for_rank_finish();
    return;
  }
  rank_item(0u); rank_item(1u); rank_item(2u); rank_item(3u);
  if (ITEMS > 4u) { rank_item(4u); rank_item(5u); rank_item(6u); rank_item(7u); }
  if (ITEMS > 8u) { rank_item(8u); rank_item(9u); rank_item(10u); rank_item(11u); }
  if (ITEMS > 12u) { rank_item(12u); rank_item(13u); rank_item(14u); rank_item(15u); }
  if (ITEMS > 16u) { rank_item(16u); rank_item(17u); rank_item(18u); rank_item(19u); }
  if (ITEMS > 20u) { rank_item(20u); rank_item(21u); rank_item(22u); rank_item(23u); }
}

fn for_rank_issue() {
  rank_issue_item(0u); rank_issue_item(1u); rank_issue_item(2u); rank_issue_item(3u);
  if (ITEMS > 4u) { rank_issue_item(4u); rank_issue_item(5u); rank_issue_item(6u); rank_issue_item(7u); }
  if (ITEMS > 8u) { rank_issue_item(8u); rank_issue_item(9u); rank_issue_item(10u); rank_issue_item(11u); }
  if (ITEMS > 12u) { rank_issue_item(12u); rank_issue_item(13u); rank_issue_item(14u); rank_issue_item(15u); }
  if (ITEMS > 16u) { rank_issue_item(16u); rank_issue_item(17u); rank_issue_item(18u); rank_issue_item(19u); }
  if (ITEMS > 20u) { rank_issue_item(20u); rank_issue_item(21u); rank_issue_item(22u); rank_issue_item(23u); }
}

fn for_rank_finish() {
  rank_finish_item(0u); rank_finish_item(1u); rank_finish_item(2u); rank_finish_item(3u);
  if (ITEMS > 4u) { rank_finish_item(4u); rank_finish_item(5u); rank_finish_item(6u); rank_finish_item(7u); }
  if (ITEMS > 8u) { rank_finish_item(8u); rank_finish_item(9u); rank_finish_item(10u); rank_finish_item(11u); }
  if (ITEMS > 12u) { rank_finish_item(12u); rank_finish_item(13u); rank_finish_item(14u); rank_finish_item(15u); }
  if (ITEMS > 16u) { rank_finish_item(16u); rank_finish_item(17u); rank_finish_item(18u); rank_finish_item(19u); }
  if (ITEMS > 20u) { rank_finish_item(20u); rank_finish_item(21u); rank_finish_item(22u); rank_finish_item(23u); }
}

fn for_place() {
  place_item(0u); place_item(1u); place_item(2u); place_item(3u);
  if (ITEMS > 4u) { place_item(4u); place_item(5u); place_item(6u); place_item(7u); }
  if (ITEMS > 8u) { place_item(8u); place_item(9u); place_item(10u); place_item(11u); }
  if (ITEMS > 12u) { place_item(12u); place_item(13u); place_item(14u); place_item(15u); }
  if (ITEMS > 16u) { place_item(16u); place_item(17u); place_item(18u); place_item(19u); }
  if (ITEMS > 20u) { place_item(20u); place_item(21u); place_item(22u); place_item(23u); }
}

fn for_move_key() {
  move_key_item(0u); move_key_item(1u); move_key_item(2u); move_key_item(3u);
  if (ITEMS > 4u) { move_key_item(4u); move_key_item(5u); move_key_item(6u); move_key_item(7u); }
  if (ITEMS > 8u) { move_key_item(8u); move_key_item(9u); move_key_item(10u); move_key_item(11u); }
  if (ITEMS > 12u) { move_key_item(12u); move_key_item(13u); move_key_item(14u); move_key_item(15u); }
  if (ITEMS > 16u) { move_key_item(16u); move_key_item(17u); move_key_item(18u); move_key_item(19u); }
  if (ITEMS > 20u) { move_key_item(20u); move_key_item(21u); move_key_item(22u); move_key_item(23u); }
}

fn for_move_val() {
  move_val_item(0u); move_val_item(1u); move_val_item(2u); move_val_item(3u);
  if (ITEMS > 4u) { move_val_item(4u); move_val_item(5u); move_val_item(6u); move_val_item(7u); }
  if (ITEMS > 8u) { move_val_item(8u); move_val_item(9u); move_val_item(10u); move_val_item(11u); }
  if (ITEMS > 12u) { move_val_item(12u); move_val_item(13u); move_val_item(14u); move_val_item(15u); }
  if (ITEMS > 16u) { move_val_item(16u); move_val_item(17u); move_val_item(18u); move_val_item(19u); }
  if (ITEMS > 20u) { move_val_item(20u); move_val_item(21u); move_val_item(22u); move_val_item(23u); }
}

fn for_write_key() {
  write_key_item(0u); write_key_item(1u); write_key_item(2u); write_key_item(3u);
  if (ITEMS > 4u) { write_key_item(4u); write_key_item(5u); write_key_item(6u); write_key_item(7u); }
  if (ITEMS > 8u) { write_key_item(8u); write_key_item(9u); write_key_item(10u); write_key_item(11u); }
  if (ITEMS > 12u) { write_key_item(12u); write_key_item(13u); write_key_item(14u); write_key_item(15u); }
  if (ITEMS > 16u) { write_key_item(16u); write_key_item(17u); write_key_item(18u); write_key_item(19u); }
  if (ITEMS > 20u) { write_key_item(20u); write_key_item(21u); write_key_item(22u); write_key_item(23u); }
}

fn for_write_key_direct() {
  write_key_direct_item(0u); write_key_direct_item(1u); write_key_direct_item(2u); write_key_direct_item(3u);
  if (ITEMS > 4u) { write_key_direct_item(4u); write_key_direct_item(5u); write_key_direct_item(6u); write_key_direct_item(7u); }
  if (ITEMS > 8u) { write_key_direct_item(8u); write_key_direct_item(9u); write_key_direct_item(10u); write_key_direct_item(11u); }
  if (ITEMS > 12u) { write_key_direct_item(12u); write_key_direct_item(13u); write_key_direct_item(14u); write_key_direct_item(15u); }
  if (ITEMS > 16u) { write_key_direct_item(16u); write_key_direct_item(17u); write_key_direct_item(18u); write_key_direct_item(19u); }
  if (ITEMS > 20u) { write_key_direct_item(20u); write_key_direct_item(21u); write_key_direct_item(22u); write_key_direct_item(23u); }
}

fn for_write_val_direct() {
  write_val_direct_item(0u); write_val_direct_item(1u); write_val_direct_item(2u); write_val_direct_item(3u);
  if (ITEMS > 4u) { write_val_direct_item(4u); write_val_direct_item(5u); write_val_direct_item(6u); write_val_direct_item(7u); }
  if (ITEMS > 8u) { write_val_direct_item(8u); write_val_direct_item(9u); write_val_direct_item(10u); write_val_direct_item(11u); }
  if (ITEMS > 12u) { write_val_direct_item(12u); write_val_direct_item(13u); write_val_direct_item(14u); write_val_direct_item(15u); }
  if (ITEMS > 16u) { write_val_direct_item(16u); write_val_direct_item(17u); write_val_direct_item(18u); write_val_direct_item(19u); }
  if (ITEMS > 20u) { write_val_direct_item(20u); write_val_direct_item(21u); write_val_direct_item(22u); write_val_direct_item(23u); }
}

fn for_write_val() {
  write_val_item(0u); write_val_item(1u); write_val_item(2u); write_val_item(3u);
  if (ITEMS > 4u) { write_val_item(4u); write_val_item(5u); write_val_item(6u); write_val_item(7u); }
  if (ITEMS > 8u) { write_val_item(8u); write_val_item(9u); write_val_item(10u); write_val_item(11u); }
  if (ITEMS > 12u) { write_val_item(12u); write_val_item(13u); write_val_item(14u); write_val_item(15u); }
  if (ITEMS > 16u) { write_val_item(16u); write_val_item(17u); write_val_item(18u); write_val_item(19u); }
  if (ITEMS > 20u) { write_val_item(20u); write_val_item(21u); write_val_item(22u); write_val_item(23u); }
}

// ---- the tile ----------------------------------------------------------------------------
// Per tile: where each digit's run starts in the tile's stable order, and its length (the
// last tile's padding keys are not counted).
var<workgroup> match_digit_start: array<u32, RADIX>;
var<workgroup> match_digit_count: array<u32, RADIX>;

// Steps 1-3 without the global offsets: loads the tile's keys (values: for_load_val
// before), leaves each key's tile position in match_ranks and fills match_digit_start and
// match_digit_count. Ends with a barrier.
fn match_rank_local(sid: u32, lane: u32, size: u32, nsg: u32) {
  match_load(nsg);
  match_rank_loaded(sid, lane, size, nsg);
}

// match_rank_local in two halves (one-sweep passes count the loaded keys in between).
fn match_load(nsg: u32) {
  for (var w = m_t; w < 128u * nsg; w += WG) {
    atomicStore(&match_shared[w], 0u);
  }
  for_load_key();
}

fn match_rank_loaded(sid: u32, lane: u32, size: u32, nsg: u32) {
  let u = sid * size + lane;
  workgroupBarrier();
  for_rank();
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
    match_digit_start[u] = start & 0xffffu;
    match_digit_start[u + 128u] = start >> 16u;
    match_digit_count[u] = total & 0xffffu;
    // Padding keys past the end (pad_bits: key all ones) all have digit 255.
    match_digit_count[u + 128u] = (total >> 16u) - select(0u, MATCH_TILE - m_valid, u == 127u);
  }
  workgroupBarrier();
  for_place();
  workgroupBarrier();  // every counter is read before the keys overwrite them
}

// Where this tile's keys with digit t go in the output (multi-pass: from the scan
// dispatch before this one; invocations t >= RADIX have no digit).
fn match_scan_offset(t: u32, group: u32) -> u32 {
  if (t >= RADIX) {
    return 0u;
  }
  return scan_offset(t, group);
}

// The tile's count of digit t (0 for invocations without a digit).
fn match_count(t: u32) -> u32 {
  return select(0u, match_digit_count[min(t, RADIX - 1u)], t < RADIX);
}

fn match_context(t: u32, sid: u32, lane: u32, size: u32, base: u32, valid: u32) {
  m_t = t;
  m_lane = lane;
  m_size = size;
  m_chunk = sid * ITEMS * size;
  m_base = base;
  m_valid = valid;
  m_counters = sid * 128u;
  m_below = lanes_below(lane);
}

// The builtins every match entry point takes.
struct MatchInvocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(subgroup_id) sid: u32,
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) size: u32,
  @builtin(num_subgroups) nsg: u32,
}

// The calling invocation's context for tile `group` (before the loads and match_rank_local).
fn match_begin(inv: MatchInvocation, group: u32) {
  let base = group * MATCH_TILE;
  match_context(inv.index, inv.sid, inv.lane, inv.size, base, min(MATCH_TILE, params.n - base));
}

// Step 4 for the keys: invocation t < RADIX passes where the tile's keys with digit t go.
fn match_scatter_keys(t: u32, offset: u32) {
  if (t < RADIX) {
    match_digit_base[t] = offset - match_digit_start[t];
  }
  if (!SHUFFLE) {
    workgroupBarrier();  // every digit base is there
    for_write_key_direct();
    return;
  }
  for_move_key();
  workgroupBarrier();  // the sorted tile and every digit base are there
  for_write_key();  // fills match_dests for the values
}

// Step 4 for the values, after the keys' (called from the pairs entry points only, so
// that the keys pipelines do not bind the values).
fn match_scatter_vals() {
  if (!SHUFFLE) {
    for_write_val_direct();
    return;
  }
  workgroupBarrier();
  for_move_val();
  workgroupBarrier();
  for_write_val();
}

@compute @workgroup_size(WG)
fn radix_scatter_match_keys(inv: MatchInvocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let offset = match_scan_offset(inv.index, group);  // fetched early
  match_begin(inv, group);
  match_rank_local(inv.sid, inv.lane, inv.size, inv.nsg);
  match_scatter_keys(inv.index, offset);
}

@compute @workgroup_size(WG)
fn radix_scatter_match_pairs(inv: MatchInvocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let offset = match_scan_offset(inv.index, group);
  match_begin(inv, group);
  for_load_val();
  match_rank_local(inv.sid, inv.lane, inv.size, inv.nsg);
  match_scatter_keys(inv.index, offset);
  match_scatter_vals();
}

// How many subgroups a workgroup of WG invocations has on this adapter (the host checks it
// is at most MAX_SUBGROUPS before choosing this path): the maximum over invocations.
@compute @workgroup_size(WG)
fn radix_subgroup_count(@builtin(num_subgroups) nsg: u32) {
  atomicMax(&key_bits[0], nsg);
}

// Segmented passes (radix_sort.wgsl, segment_tile): the same ranking on tile `group` of a
// segment, its digit offsets from the segment-major scan.
@compute @workgroup_size(WG)
fn radix_scatter_match_segments_keys(inv: MatchInvocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let tile = segment_tile(group);
  let offset = segment_offset(tile, inv.index);
  match_context(inv.index, inv.sid, inv.lane, inv.size, tile.base, tile.valid);
  match_rank_local(inv.sid, inv.lane, inv.size, inv.nsg);
  match_scatter_keys(inv.index, offset);
}

@compute @workgroup_size(WG)
fn radix_scatter_match_segments_pairs(inv: MatchInvocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let tile = segment_tile(group);
  let offset = segment_offset(tile, inv.index);
  index_origin = tile.start;
  match_context(inv.index, inv.sid, inv.lane, inv.size, tile.base, tile.valid);
  for_load_val();
  match_rank_local(inv.sid, inv.lane, inv.size, inv.nsg);
  match_scatter_keys(inv.index, offset);
  match_scatter_vals();
}
