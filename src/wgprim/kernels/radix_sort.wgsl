// LSD radix sort, one 8-bit digit per pass; ops/radix_sort.py records the passes.
//
// One pass is a chain of dispatches (each arrow is a dispatch boundary, the only global
// sync):
//   radix_count    each workgroup counts the digits of its tile in workgroup memory and
//                  writes them digit-major: counts[digit * tiles + tile]
//   -> scan        an exclusive sum over all counts (the scan kernels): offsets[digit *
//                  tiles + tile] is where this tile's keys with that digit go
//   -> radix_scatter_keys / radix_scatter_pairs
//                  each workgroup sorts its own tile stably by the digit inside workgroup
//                  memory (two 4-bit split passes), then writes each key to its offset.
//                  Adapters with subgroups use radix_scatter_match.wgsl instead (joined
//                  after this file): one ranking per key by subgroup match.
// No workgroup reads what another one writes in the same dispatch.
//
// A sort returns the input's own bits (a bitwise permutation of its input). Integer keys
// travel between passes as order-preserving u32 (their order key is a bijection): the
// first pass transforms the input (flag TRANSFORM_IN), the last one undoes it (flag
// TRANSFORM_OUT). Float keys would lose bits that way (-0.0's sign, NaN payloads): they
// travel as the input's raw bits and every pass takes its digit from their key
// (radix_key, radix_keys.wgsl). `held`, `key_of` and `stored` say what a pass holds,
// compares and writes; a partial tile is padded with pad_bits (key all ones: last).
//
// The preamble (ops/radix_sort.py) defines WG and ITEMS as constants (function-scope
// arrays need constant sizes), the key transforms radix_key/radix_pad (radix_keys.wgsl)
// and the block scan of u32 sums (ops/block_scan.py: Invocation,
// block_exclusive_scan_total).

const TILE: u32 = WG * ITEMS;          // keys per workgroup
const PADDED: u32 = TILE + TILE / 32u; // one spare slot every 32 avoids bank conflicts
const RADIX: u32 = 256u;
const ROWS: u32 = 8u;                  // counter rows: 16 digits of 4 bits, two u16 per word

const TRANSFORM_IN: u32 = 1u;   // integer keys: the pass loads user keys (transforms them)
const TRANSFORM_OUT: u32 = 2u;  // integer keys: the last pass writes user keys back
const INDEX_VALUES: u32 = 4u;   // first pass of argsort: the value of key i is i

// Keys beyond one storage binding are read in binding-sized chunks (one dispatch per
// chunk, keys_in bound to the chunk). The scatter may write anywhere in the output, which
// is bound as two windows starting at `window_base`: positions below window_base + split
// in keys_out, the next ones in keys_out_hi; a key whose position is in neither is left
// to another scatter dispatch over other windows (outputs of more than two bindings).
struct Params {
  n: u32,           // keys in this chunk
  tiles: u32,       // tiles of TILE keys in the whole array (row length of the counts)
  groups: u32,      // workgroups with work (= tiles of this chunk; the grid may be larger)
  shift: u32,       // bit position of this pass's digit
  flags: u32,       // CLAIM_TILES (radix_onesweep.wgsl); the pass's TRANSFORM_* and
                    // INDEX_VALUES bits too, which the kernels take from PASS_FLAGS
  mode: u32,        // KIND_* | DESCENDING (the kernels use the pipeline constant KEY_MODE)
  tile_offset: u32, // the chunk's first tile among all tiles
  first: u32,       // the chunk's first key among all keys
  split: u32,       // length of the low window (0xffffffff: the output fits one binding)
  window_base: u32, // output position of the low window's first element
  // One-sweep passes only (radix_onesweep.wgsl); zero elsewhere.
  spin: u32,        // polls of a predecessor's state word before counting its keys instead
  region: u32,      // first state word of this pass
  next_region: u32, // first state word of the next pass (cleared by this one)
  digit: u32,       // which digit (0..3) this pass sorts by: its row of the global bins
  fault: u32,       // tests: tiles t with t % fault == fault - 1 never publish (0: all do)
  hist_tiles: u32,  // tiles per workgroup of the upfront histogram
  // Segmented passes only (radix_count_segments, radix_scatter_*segments*); zero elsewhere.
  seg_length: u32,  // equal rows of this length (0: the tiles are listed in seg_table)
  pad0: u32,
  pad1: u32,
  pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(5) var<storage, read> vals_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> vals_out: array<u32>;
@group(0) @binding(7) var<storage, read_write> key_bits: array<atomic<u32>, 2>;
@group(0) @binding(8) var<storage, read_write> keys_out_hi: array<u32>;
@group(0) @binding(9) var<storage, read_write> vals_out_hi: array<u32>;
// Segmented passes over CSR segments: one entry per tile (segment start, segment length,
// the segment's first tile, output shift); see segment_tile.
@group(0) @binding(13) var<storage, read> seg_table: array<vec4<u32>>;

// Whether the output is bound as windows (params.window_base, params.split: outputs
// beyond two bindings) or whole in keys_out / vals_out: a pipeline constant, so that the
// common case stores without the window tests.
override OUTPUT_WINDOWS: bool = true;

fn store_key(pos: u32, key: u32) {
  if (!OUTPUT_WINDOWS) {
    keys_out[pos] = key;
    return;
  }
  if (pos < params.window_base) {
    return;
  }
  let r = pos - params.window_base;
  if (r < params.split) {
    keys_out[r] = key;
  } else if (r - params.split < arrayLength(&keys_out_hi)) {
    keys_out_hi[r - params.split] = key;
  }
}

fn store_val(pos: u32, v: u32) {
  if (!OUTPUT_WINDOWS) {
    vals_out[pos] = v;
    return;
  }
  if (pos < params.window_base) {
    return;
  }
  let r = pos - params.window_base;
  if (r < params.split) {
    vals_out[r] = v;
  } else if (r - params.split < arrayLength(&vals_out_hi)) {
    vals_out_hi[r - params.split] = v;
  }
}

// Segmented passes: INDEX_VALUES numbers keys from their segment's start (0 elsewhere).
var<private> index_origin: u32;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

fn slot(i: u32) -> u32 {
  return i + (i >> 5u);
}

// The sorter's key mode (kind | DESCENDING, radix_keys.wgsl) and the pass's flags
// (TRANSFORM_IN in the first pass, TRANSFORM_OUT in the last, INDEX_VALUES in argsort's
// first): pipeline constants, so that the passes of integer keys between the first and
// the last carry no transform code at all (and float passes only the key). With the mode
// and the flags read from `params` at run time, every pass of a 2^26-key sort took 1.14
// ms on an H200 against 0.74 (the first pass 1.11 when only it applied the transform)
// (2026-12-01).
override KEY_MODE: u32 = 0u;
override PASS_FLAGS: u32 = 0u;

// Float keys move as raw bits (every pass takes the digit from their key).
fn raw_keys() -> bool {
  return (KEY_MODE & 3u) == KIND_F32;
}

// What a pass holds and moves for the bits it loads from keys_in.
fn held(bits: u32) -> u32 {
  if (!raw_keys() && (PASS_FLAGS & TRANSFORM_IN) != 0u) {
    return to_radix(bits, KEY_MODE);
  }
  return bits;
}

// The order key of what a pass holds.
fn key_of(h: u32) -> u32 {
  if (raw_keys()) {
    return radix_key(h, KEY_MODE);
  }
  return h;
}

// What a pass writes for what it holds (the last pass of integer keys: the user's bits).
fn stored(h: u32) -> u32 {
  if (!raw_keys() && (PASS_FLAGS & TRANSFORM_OUT) != 0u) {
    return from_radix(h, KEY_MODE);
  }
  return h;
}

// What pads a partial tile: held bits whose key is all ones (digit 255 in every pass).
fn pad_bits() -> u32 {
  if (raw_keys()) {
    return radix_pad(KEY_MODE);
  }
  return 0xffffffffu;
}

// The key of key i (what counts, probes and histograms need: digits only).
fn load_key(i: u32) -> u32 {
  return key_of(held(keys_in[i]));
}

fn digit_of(key: u32) -> u32 {
  return (key >> params.shift) & 0xffu;
}

// This pass's digit of held bits.
fn held_digit(h: u32) -> u32 {
  return digit_of(key_of(h));
}

// ---- probe: which bits vary among the keys -------------------------------------------
// OR and AND of all transformed keys, accumulated with atomics in this dispatch and read
// back by the host after it: digits where OR == AND are equal in every key (pass skipped).
// radix_probe_init (one invocation) sets key_bits to (0, 0xffffffff) before it.
@compute @workgroup_size(1)
fn radix_probe_init() {
  atomicStore(&key_bits[0], 0u);
  atomicStore(&key_bits[1], 0xffffffffu);
}

var<workgroup> probe_or: atomic<u32>;
var<workgroup> probe_and: atomic<u32>;

fn probe_begin(t: u32) {
  if (t == 0u) {
    atomicStore(&probe_or, 0u);
    atomicStore(&probe_and, 0xffffffffu);
  }
}

// This invocation's OR and AND into the workgroup's, then the workgroup's into key_bits.
// Every invocation calls it; probe_begin's stores are ordered before by a barrier.
fn probe_end(t: u32, bits: vec2<u32>) {
  atomicOr(&probe_or, bits.x);
  atomicAnd(&probe_and, bits.y);
  workgroupBarrier();
  if (t == 0u) {
    atomicOr(&key_bits[0], atomicLoad(&probe_or));
    atomicAnd(&key_bits[1], atomicLoad(&probe_and));
  }
}

@compute @workgroup_size(WG)
fn radix_probe(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  probe_begin(t);
  workgroupBarrier();
  var any = 0u;
  var all = 0xffffffffu;
  let base = group * TILE;
  // Loads clamped into range (past the end: the last key again, which changes neither OR
  // nor AND) and written out, so that they go out together.
  // unroll
  for (var k = 0u; k < ITEMS; k++) {
    let key = load_key(min(base + k * WG + t, params.n - 1u));
    any = any | key;
    all = all & key;
  }
  probe_end(t, vec2<u32>(any, all));
}

// ---- dispatch 1: digit counts per tile -----------------------------------------------
var<workgroup> histogram: array<atomic<u32>, RADIX>;

// The digits of the `valid` keys at keys_in[base ..] into `histogram` (zeroed here), by the
// whole workgroup. The keys are all loaded (clamped into the binding, written out) before
// any is counted: a load between two atomics waits for the one before, so with the loads
// inside the counting loop an invocation read its keys one at a time (H200, 2^26 keys:
// 0.17 against 0.15 ms a count pass). One tile per workgroup: 4, 8 or 16 tiles, each
// counted into its own row, the rows stored together, measured slower (a 2^26 sort 2.54,
// 2.78, 3.47 against 2.43 ms; docs/sort.md).
// Returns the OR and AND of this invocation's keys.
fn count_tile(t: u32, base: u32, valid: u32) -> vec2<u32> {
  for (var d = t; d < RADIX; d += WG) {
    atomicStore(&histogram[d], 0u);
  }
  var keys: array<u32, ITEMS>;
  // unroll
  for (var k = 0u; k < ITEMS; k++) {
    keys[k] = load_key(min(base + k * WG + t, arrayLength(&keys_in) - 1u));
  }
  workgroupBarrier();
  var any = 0u;
  var all = 0xffffffffu;
  // unroll
  for (var k = 0u; k < ITEMS; k++) {
    if (k * WG + t < valid) {
      atomicAdd(&histogram[digit_of(keys[k])], 1u);
      any = any | keys[k];
      all = all & keys[k];
    }
  }
  workgroupBarrier();
  return vec2<u32>(any, all);
}

// The tile's counts, digit-major: counts[digit * tiles + tile] (the scan's input order).
fn store_counts(t: u32, group: u32) {
  for (var d = t; d < RADIX; d += WG) {
    counts[d * params.tiles + params.tile_offset + group] = atomicLoad(&histogram[d]);
  }
}

@compute @workgroup_size(WG)
fn radix_count(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  count_tile(t, group * TILE, min(TILE, params.n - group * TILE));
  store_counts(t, group);
}

// ---- dispatch 3: stable in-tile sort by the digit, then scatter ------------------------
var<workgroup> exchange: array<u32, PADDED>;
var<workgroup> counters: array<u32, ROWS * WG>;
var<workgroup> digit_base: array<u32, RADIX>;

// Each invocation holds ITEMS keys of the tile in "blocked" order: invocation t has the
// tile positions t * ITEMS + j. Blocked order is input order, which is what makes the
// ranking stable.
var<private> keys: array<u32, ITEMS>;
var<private> vals: array<u32, ITEMS>;
var<private> ranks: array<u32, ITEMS>;
var<private> dests: array<u32, ITEMS>;

// ranks[j] = stable position of keys[j] in the tile when ordered by the 4-bit field at
// `shift`. Counters are per (digit, invocation), digit-major, so one exclusive sum over
// them gives every rank (the CUB BlockRadixRank layout); two digits share one u32 word
// (digit d in row d % 8, half d / 8; halves never carry: they hold at most TILE).
fn rank_4bits(inv: Invocation, shift: u32) {
  let t = inv.index;
  workgroupBarrier();  // the previous user of `counters` is done
  for (var r = 0u; r < ROWS; r++) {
    counters[r * WG + t] = 0u;
  }
  for (var j = 0u; j < ITEMS; j++) {
    let d = (key_of(keys[j]) >> shift) & 15u;
    let at = (d & 7u) * WG + t;
    let half = (d >> 3u) * 16u;
    let c = counters[at];
    ranks[j] = (c >> half) & 0xffffu;
    counters[at] = c + (1u << half);
  }
  workgroupBarrier();
  // Invocation t sums the ROWS consecutive words t * ROWS .. in digit-major order.
  var sum = 0u;
  for (var r = 0u; r < ROWS; r++) {
    sum += counters[t * ROWS + r];
  }
  let scanned = block_exclusive_scan_total(inv, sum);
  // The high halves (digits 8..15) come after every low half (digits 0..7).
  var run = scanned.before + ((scanned.total & 0xffffu) << 16u);
  for (var r = 0u; r < ROWS; r++) {
    let c = counters[t * ROWS + r];
    counters[t * ROWS + r] = run;
    run += c;
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    let d = (key_of(keys[j]) >> shift) & 15u;
    ranks[j] += (counters[(d & 7u) * WG + t] >> ((d >> 3u) * 16u)) & 0xffffu;
  }
}

// Move keys[j] to tile position ranks[j], then take the blocked positions back.
fn permute_keys(t: u32) {
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    exchange[slot(ranks[j])] = keys[j];
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    keys[j] = exchange[slot(t * ITEMS + j)];
  }
}

fn permute_vals(t: u32) {
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    exchange[slot(ranks[j])] = vals[j];
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    vals[j] = exchange[slot(t * ITEMS + j)];
  }
}

// Coalesced load of the tile (past the end: pad_bits, whose key is the largest: they
// stay last), then transposed to blocked order through workgroup memory.
fn load_tile_keys(t: u32, base: u32, valid: u32) {
  for (var k = 0u; k < ITEMS; k++) {
    let i = k * WG + t;
    var key = pad_bits();
    if (i < valid) {
      key = held(keys_in[base + i]);
    }
    exchange[slot(i)] = key;
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    keys[j] = exchange[slot(t * ITEMS + j)];
  }
}

fn load_tile_vals(t: u32, base: u32, valid: u32) {
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let i = k * WG + t;
    var v = 0u;
    if ((PASS_FLAGS & INDEX_VALUES) != 0u) {
      v = params.first + base + i - index_origin;
    } else if (i < valid) {
      v = vals_in[base + i];
    }
    exchange[slot(i)] = v;
  }
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    vals[j] = exchange[slot(t * ITEMS + j)];
  }
}

// Sort the tile's keys by the 8-bit digit (low field first: LSD inside the tile too) and
// leave the final ranks in `ranks`; `keys` stays in the order before the last move.
// With values, they follow each move.
fn rank_tile(inv: Invocation, with_values: bool) {
  let t = inv.index;
  rank_4bits(inv, params.shift);
  permute_keys(t);
  if (with_values) {
    permute_vals(t);
  }
  rank_4bits(inv, params.shift + 4u);
}

// Put the keys at their sorted tile positions in `exchange` and find each digit's run in
// them: digit_base[d] .. counters[d] (start and end, both 0 for digits the tile lacks;
// the ranking's counters are free by then, which keeps the pass in 16 KiB).
fn sort_tile_runs(t: u32, valid: u32) {
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    exchange[slot(ranks[j])] = keys[j];
  }
  digit_base[t] = 0u;
  counters[t] = 0u;
  workgroupBarrier();
  // Exactly one invocation sees each run's start, one its end.
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    if (p < valid) {
      let d = held_digit(exchange[slot(p)]);
      if (p == 0u || held_digit(exchange[slot(p - 1u)]) != d) {
        digit_base[d] = p;
      }
      if (p + 1u == valid || held_digit(exchange[slot(p + 1u)]) != d) {
        counters[d] = p + 1u;
      }
    }
  }
  workgroupBarrier();
}

// Invocation t passes where the tile's keys with digit t go in the output; fills `dests`
// for the keys an invocation writes (tile positions k * WG + t: adjacent invocations write
// adjacent addresses).
fn tile_dests(t: u32, offset: u32) {
  digit_base[t] = offset - digit_base[t];  // only invocation t touches word t here
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    dests[k] = digit_base[held_digit(exchange[slot(p)])] + p;
  }
}

// Loads tile `group`'s keys; returns how many it has. (The values are loaded by the
// caller, with load_tile_vals: functions that touch the value bindings are called only
// from the pairs entry points, so that the keys pipelines do not bind them.)
fn split_load(t: u32, group: u32) -> u32 {
  let valid = min(TILE, params.n - group * TILE);
  load_tile_keys(t, group * TILE, valid);
  return valid;
}

// The loaded tile ranked (its values moved along) and sorted in workgroup memory, its
// digit runs found.
fn split_rank(inv: Invocation, valid: u32, with_values: bool) {
  rank_tile(inv, with_values);
  sort_tile_runs(inv.index, valid);
}

// After split_rank: invocation t passes the global offset of the tile's digit t.
fn split_scatter_keys(t: u32, offset: u32, valid: u32) {
  tile_dests(t, offset);
  write_keys(t, valid);
}

fn write_keys(t: u32, valid: u32) {
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    if (p < valid) {
      store_key(dests[k], stored(exchange[slot(p)]));
    }
  }
}

// The values take the same final move as the keys (after write_keys): through the
// exchange in workgroup memory to the destinations write_keys computed.
fn write_vals(t: u32, valid: u32) {
  workgroupBarrier();
  for (var j = 0u; j < ITEMS; j++) {
    exchange[slot(ranks[j])] = vals[j];
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let p = k * WG + t;
    if (p < valid) {
      store_val(dests[k], exchange[slot(p)]);
    }
  }
}

// Where tile `group`'s keys with digit t go: the scan's output, digit-major, or with
// BY_TILE its transpose (radix_transpose_offsets: the tile's 256 offsets in one run).
fn scan_offset(t: u32, group: u32) -> u32 {
  let tile = params.tile_offset + group;
  return offsets[select(t * params.tiles + tile, tile * RADIX + t, BY_TILE)];
}

// ---- BY_TILE: the scan's offsets transposed, tile-major --------------------------------
// offsets[digit * tiles + tile] -> counts[tile * RADIX + digit] (the counts are consumed by
// then), in blocks of 32 digits x 32 tiles through workgroup memory (33 columns: no bank
// conflicts); the scatter dispatches then bind counts as their offsets.
var<workgroup> transpose_block: array<u32, 1056>;

@compute @workgroup_size(WG)
fn radix_transpose_offsets(@builtin(workgroup_id) wid: vec3<u32>,
                           @builtin(num_workgroups) nwg: vec3<u32>,
                           @builtin(local_invocation_index) t: u32) {
  let block = group_index(wid, nwg);
  let tile_blocks = (params.tiles + 31u) / 32u;
  if (block >= (RADIX / 32u) * tile_blocks) {
    return;
  }
  let digit0 = (block / tile_blocks) * 32u;
  let tile0 = (block % tile_blocks) * 32u;
  for (var k = t; k < 1024u; k += WG) {
    let row = k / 32u;  // digit digit0 + row, tile tile0 + col
    let col = k % 32u;
    if (tile0 + col < params.tiles) {
      transpose_block[row * 33u + col] = offsets[(digit0 + row) * params.tiles + tile0 + col];
    }
  }
  workgroupBarrier();
  for (var k = t; k < 1024u; k += WG) {
    let row = k / 32u;  // tile tile0 + row, digit digit0 + col
    let col = k % 32u;
    if (tile0 + row < params.tiles) {
      counts[(tile0 + row) * RADIX + digit0 + col] = transpose_block[col * 33u + row];
    }
  }
}

@compute @workgroup_size(WG)
fn radix_scatter_keys(inv: Invocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let valid = split_load(inv.index, group);
  split_rank(inv, valid, false);
  split_scatter_keys(inv.index, scan_offset(inv.index, group), valid);
}

@compute @workgroup_size(WG)
fn radix_scatter_pairs(inv: Invocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let valid = split_load(inv.index, group);
  load_tile_vals(inv.index, group * TILE, valid);
  split_rank(inv, valid, true);
  split_scatter_keys(inv.index, scan_offset(inv.index, group), valid);
  write_vals(inv.index, valid);
}

// ---- segmented passes: every segment sorted on its own, in the same passes -------------
// LSD radix sort with segment-major digit offsets (as CUB's segmented radix sort): every
// segment has ceil(length / TILE) tiles of its own (its last one partial), so no tile
// straddles two segments. The counts are laid out [segment][digit][tile of the segment]:
// the same exclusive scan over them then gives offsets that keep every segment's keys
// inside the segment (segments follow each other in the scan), stably ordered by the digit.
// Tile g's segment comes from arithmetic for equal rows (params.seg_length) or from
// seg_table[g] = (start, length, first tile, shift) for CSR segments, where shift moves the
// scan's packed positions to the segment's place (segments not sorted here are skipped).
struct SegmentTile {
  start: u32,   // the segment's first key
  base: u32,    // the tile's first key
  valid: u32,   // keys in the tile
  column: u32,  // counts/offsets index of digit 0: digit d at column + d * stride
  stride: u32,  // tiles of the segment
  shift: u32,   // added to the scan's offsets
}

fn segment_tile(group: u32) -> SegmentTile {
  var start = 0u;
  var length = 0u;
  var first = 0u;
  var shift = 0u;
  if (params.seg_length != 0u) {
    let per_row = (params.seg_length + TILE - 1u) / TILE;
    let row = group / per_row;
    start = row * params.seg_length;
    length = params.seg_length;
    first = row * per_row;
  } else {
    let e = seg_table[group];
    start = e.x;
    length = e.y;
    first = e.z;
    shift = e.w;
  }
  let j = group - first;
  var tile: SegmentTile;
  tile.start = start;
  tile.base = start + j * TILE;
  tile.valid = min(TILE, length - j * TILE);
  tile.column = first * RADIX + j;
  tile.stride = (length + TILE - 1u) / TILE;
  tile.shift = shift;
  return tile;
}

// Where the tile's keys with digit t go (invocations t >= RADIX have no digit).
fn segment_offset(tile: SegmentTile, t: u32) -> u32 {
  if (t >= RADIX) {
    return 0u;
  }
  return offsets[tile.column + t * tile.stride] + tile.shift;
}

@compute @workgroup_size(WG)
fn radix_count_segments(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let tile = segment_tile(group);
  count_tile(t, tile.base, tile.valid);
  for (var d = t; d < RADIX; d += WG) {
    counts[tile.column + d * tile.stride] = atomicLoad(&histogram[d]);
  }
}

@compute @workgroup_size(WG)
fn radix_scatter_segments_keys(inv: Invocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let tile = segment_tile(group);
  load_tile_keys(inv.index, tile.base, tile.valid);
  split_rank(inv, tile.valid, false);
  split_scatter_keys(inv.index, segment_offset(tile, inv.index), tile.valid);
}

@compute @workgroup_size(WG)
fn radix_scatter_segments_pairs(inv: Invocation) {
  let group = group_index(inv.wid, inv.nwg);
  if (group >= params.groups) {
    return;
  }
  let tile = segment_tile(group);
  index_origin = tile.start;
  load_tile_keys(inv.index, tile.base, tile.valid);
  load_tile_vals(inv.index, tile.base, tile.valid);
  split_rank(inv, tile.valid, true);
  split_scatter_keys(inv.index, segment_offset(tile, inv.index), tile.valid);
  write_vals(inv.index, tile.valid);
}
