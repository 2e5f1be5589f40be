// Single-pass chained scan with decoupled fallback: the look-back shared by
// scan_chained.wgsl and compact_chained.wgsl (put after them or before, any order).
//
// Each workgroup owns one tile. It publishes the tile's AGGREGATE, looks back at earlier
// tiles for the combination of everything before it, then publishes its INCLUSIVE value.
// It never waits for another workgroup: a predecessor that is NOT READY is polled at most
// SPIN_BUDGET more times, then this workgroup reduces that predecessor's input tile itself
// (chain_reduce_tile: the fallback) and goes on further back. So every loop below ends after
// a bounded number of rounds whatever the scheduler does (one workgroup at a time, any order).
//
// How far back a look-back can walk is bounded by the tiles of its dispatch, which the host
// bounds where the driver caps an invocation's loop iterations (Mesa's llvmpipe: 65,535 in
// all, then every loop ends silently; ops/chained_scan.lookback_tiles, docs/scan.md "The
// loop cap"). So the fallback's reduction runs no loop at run time (chain_workgroup_total).
//
// Atomics do not order other memory, so every value travels inside the atomic words that
// carry its state: each 32-bit word of a value is two 16-bit halves, each in its own
// atomic<u32> with a READY bit (bit 16). A value of CHAIN_WORDS words (1, or 2 for 64-bit
// values) takes 2 * CHAIN_WORDS state words; a tile has STATE_WORDS: the aggregate's
// halves, low first, then the inclusive value's. A word changes at most once per run, from
// 0 to READY | half (the states are zeroed by a dispatch before this one), and only ever
// to the halves of one value: the owner alone writes the
// inclusive words; the aggregate words are written by the owner and, when PUBLISH_FALLBACK
// is on (integer operators and min/max, where every workgroup's reduction of a tile is the
// same bits), by workgroups that fell back on that tile, with those same bits. A reader that
// sees every half READY therefore holds every half of one value.
//
// One of chained_window_subgroup.wgsl / chained_window_barrier.wgsl defines
// lookback_windows(), the reading of predecessors' states a window at a time.
//
// The preamble (ops/chained_scan.lookback_preamble) defines CHAIN_WORDS, chain_bits(v) (the
// value's words in a vec2<u32>, the second unused for one word) and chain_from_bits.
// The including kernel defines: `alias ChainT` (the value type, 32 or 64 bits), chain_identity(),
// chain_combine(a, b) (associative, kept in order), `Invocation` (with `index`), `WG`, and
// chain_reduce_tile(inv, tile) -> ChainT, the in-order combination of tile `tile`'s input,
// called by the whole workgroup in uniform control flow, with no loop that runs at run time
// (chain_workgroup_total combines the invocations' parts).

override SPIN_BUDGET: u32 = 4u;    // polls of a NOT READY predecessor before falling back
// Test mode (SPIN_SEED != 0): each tile polls at most a pseudo-random 0..SPIN_BUDGET times,
// so that under real concurrency some tiles fall back and others don't.
override SPIN_SEED: u32 = 0u;
override PUBLISH_FALLBACK: bool = false;
// Test modes (FAULT_MODE != 0): tiles with tile % FAULT_EVERY == FAULT_PHASE misbehave.
// 1: publish nothing; 2: spin FAULT_DELAY rounds before publishing; 3: publish the
// aggregate but never the inclusive value. 4 (measurements only, the results are wrong):
// no look-back, the prefix is the identity: what the kernel costs without its look-back.
override FAULT_MODE: u32 = 0u;
override FAULT_EVERY: u32 = 1u;
override FAULT_PHASE: u32 = 0u;
override FAULT_DELAY: u32 = 20000u;
override STATS: bool = false;  // count fallbacks and look-back rounds into chain_stats

const STATE_READY: u32 = 0x10000u;
const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
const LOOKBACK_DONE: u32 = 0xffffffffu;
const STATE_WORDS: u32 = 4u * CHAIN_WORDS;  // per tile: aggregate and inclusive, two halves a word

struct Chain {
  tile_base: u32,  // state index of this dispatch's tile 0 (STATE_WORDS words per tile)
  has_carry: u32,  // 1: chunk_carry[carry_in] combines everything before this dispatch
  carry_in: u32,
  carry_out: u32,  // the last tile writes its inclusive value to chunk_carry[carry_out]
}

@group(0) @binding(10) var<uniform> chain: Chain;
@group(0) @binding(11) var<storage, read_write> tile_states: array<atomic<u32>>;
// Written by the last tile for later dispatches only (the next chunk, or the host).
@group(0) @binding(12) var<storage, read_write> chunk_carry: array<ChainT>;
// [fallbacks, look-back rounds, polls of a NOT READY predecessor, delay sink]
@group(0) @binding(13) var<storage, read_write> chain_stats: array<atomic<u32>>;

var<workgroup> lb_end: u32;       // tiles [lb_end, tile) are combined; LOOKBACK_DONE: finished
var<workgroup> lb_fallback: u32;  // the tile to reduce ourselves, or LOOKBACK_DONE
var<workgroup> lb_prefix: ChainT;
var<workgroup> lb_carry: ChainT;
var<workgroup> lb_aggregate: ChainT;  // set by the including kernel before chained_prefix
var<workgroup> chain_tree: array<ChainT, WG>;
var<private> lb_spin_budget: u32;  // this tile's polls before a fallback (lookback_windows)

const CHAIN_TREE_STEPS: u32 = 10u;  // log2 of the largest workgroup (1024 invocations)

// The combination of every invocation's `mine`, in invocation order, for the whole
// workgroup: a tree in workgroup memory whose loop is written out when the kernel is
// compiled (unroll.py), so it counts no loop iteration at run time. Uniform control flow.
fn chain_workgroup_total(inv: Invocation, mine: ChainT) -> ChainT {
  let t = inv.index;
  chain_tree[t] = mine;
  // unroll
  for (var k = 0u; k < CHAIN_TREE_STEPS; k++) {
    let s = 1u << k;
    if (s < WG) {
      workgroupBarrier();
      // Slots that are multiples of 2s take in their neighbour s away (in order); the
      // neighbour is no writer this step.
      if ((t & (2u * s - 1u)) == 0u && t + s < WG) {
        chain_tree[t] = chain_combine(chain_tree[t], chain_tree[t + s]);
      }
    }
  }
  return workgroupUniformLoad(&chain_tree[0]);
}

// The polls of a NOT READY predecessor this tile makes before it falls back.
fn tile_spin_budget(tile: u32) -> u32 {
  if (SPIN_SEED == 0u) {
    return SPIN_BUDGET;
  }
  // A 32-bit integer hash of the tile and the seed (lowbias32, by Chris Wellons).
  var h = (chain.tile_base + tile) ^ SPIN_SEED;
  h ^= h >> 16u;
  h *= 0x7feb352du;
  h ^= h >> 15u;
  h *= 0x846ca68bu;
  h ^= h >> 16u;
  return h % (SPIN_BUDGET + 1u);
}

fn faulty(tile: u32) -> bool {
  return FAULT_MODE != 0u && (chain.tile_base + tile) % FAULT_EVERY == FAULT_PHASE;
}

// Every half of `value`, each with its READY bit, into the aggregate (kind 0) or
// inclusive (kind 1) words of `tile`.
fn publish(tile: u32, kind: u32, value: ChainT) {
  let bits = chain_bits(value);
  let w = (chain.tile_base + tile) * STATE_WORDS + kind * 2u * CHAIN_WORDS;
  // unroll
  for (var k = 0u; k < CHAIN_WORDS; k++) {
    atomicStore(&tile_states[w + 2u * k], STATE_READY | (bits[k] & 0xffffu));
    atomicStore(&tile_states[w + 2u * k + 1u], STATE_READY | (bits[k] >> 16u));
  }
}

struct TileState {
  status: u32,
  value: ChainT,
}

// The state of `tile`: its inclusive value if every half is there, else its aggregate
// if every half is there, else NOT READY.
fn read_state(tile: u32) -> TileState {
  let w = (chain.tile_base + tile) * STATE_WORDS;
  var inc_bits = vec2<u32>(0u);
  var agg_bits = vec2<u32>(0u);
  var inc_ready = STATE_READY;
  var agg_ready = STATE_READY;
  // unroll
  for (var k = 0u; k < CHAIN_WORDS; k++) {
    let inc_lo = atomicLoad(&tile_states[w + 2u * CHAIN_WORDS + 2u * k]);
    let inc_hi = atomicLoad(&tile_states[w + 2u * CHAIN_WORDS + 2u * k + 1u]);
    let agg_lo = atomicLoad(&tile_states[w + 2u * k]);
    let agg_hi = atomicLoad(&tile_states[w + 2u * k + 1u]);
    inc_ready &= inc_lo & inc_hi;
    agg_ready &= agg_lo & agg_hi;
    inc_bits[k] = (inc_lo & 0xffffu) | (inc_hi << 16u);
    agg_bits[k] = (agg_lo & 0xffffu) | (agg_hi << 16u);
  }
  // Selects, not branches: the look-back window calls this right before subgroup operations.
  let inclusive = (inc_ready & STATE_READY) != 0u;
  let aggregate = (agg_ready & STATE_READY) != 0u;
  let inc = chain_from_bits(inc_bits);
  let agg = chain_from_bits(agg_bits);
  let status = select(select(NOT_READY, AGGREGATE, aggregate), INCLUSIVE, inclusive);
  return TileState(status, select(select(chain_identity(), agg, aggregate), inc, inclusive));
}

// Test mode 2: a bounded busy loop before publishing, so successors find this tile late.
fn fault_delay(tile: u32) {
  var seen = 0u;
  for (var k = 0u; k < FAULT_DELAY; k++) {
    seen |= atomicLoad(&tile_states[(chain.tile_base + tile) * STATE_WORDS]);
  }
  if (seen == 0x5a5a5a5au) {  // never true: keeps the loop from being optimized away
    atomicAdd(&chain_stats[3], 1u);
  }
}

// The combination of everything before tile `tile` of this dispatch (the carry of earlier
// chunks included), for the whole workgroup. Publishes the tile's aggregate first
// (lb_aggregate, set by the caller before this call) and its inclusive value after; the
// last tile of the dispatch also writes it to chunk_carry[carry_out]. Call in uniform
// control flow.
fn chained_prefix(inv: Invocation, tile: u32, last: bool) -> ChainT {
  let t = inv.index;
  // The combination of tiles [lb_end, tile) and the polls of the nearest one: only
  // invocation 0's copies count (the window functions may update others' copies alike).
  var acc = chain_identity();
  var polls = 0u;
  lb_spin_budget = tile_spin_budget(tile);
  workgroupBarrier();  // lb_aggregate is set
  let aggregate = lb_aggregate;
  if (t == 0u) {
    if (faulty(tile) && FAULT_MODE == 2u) {
      fault_delay(tile);
    }
    if (!(faulty(tile) && FAULT_MODE == 1u)) {
      publish(tile, 0u, aggregate);
    }
    lb_end = tile;
    lb_fallback = LOOKBACK_DONE;
    lb_carry = chain_identity();
    if (chain.has_carry == 1u) {
      lb_carry = chunk_carry[chain.carry_in];
    }
    if (faulty(tile) && FAULT_MODE == 4u) {
      lb_prefix = chain_identity();
      lb_end = LOOKBACK_DONE;
    }
  }
  // wgprim: allow(lookback-depth) -- the host bounds the walk: where the driver caps loop iterations a dispatch spans at most lookback_tiles() tiles (ops/chained_scan.py)
  loop {
    let end = workgroupUniformLoad(&lb_end);
    if (end == LOOKBACK_DONE) {
      break;
    }
    // Windows of predecessors, until the look-back is finished or a predecessor stays
    // NOT READY past the spin budget (then lb_fallback names it).
    lookback_windows(inv, end, &acc, &polls);
    let fallback = workgroupUniformLoad(&lb_fallback);
    if (fallback != LOOKBACK_DONE) {
      // Decoupled fallback: reduce the predecessor's input ourselves and go on before it.
      let reduced = chain_reduce_tile(inv, fallback);
      if (t == 0u) {
        acc = chain_combine(reduced, acc);
        if (PUBLISH_FALLBACK) {
          publish(fallback, 0u, reduced);
        }
        if (STATS) {
          atomicAdd(&chain_stats[0], 1u);
        }
        lb_end = fallback;
        lb_fallback = LOOKBACK_DONE;
      }
    }
  }
  if (t == 0u) {
    let inclusive = chain_combine(lb_prefix, aggregate);
    if (!(faulty(tile) && (FAULT_MODE == 1u || FAULT_MODE == 3u))) {
      publish(tile, 1u, inclusive);
    }
    if (last) {
      chunk_carry[chain.carry_out] = inclusive;
    }
  }
  return workgroupUniformLoad(&lb_prefix);
}
