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
// Atomics do not order other memory, so every value travels inside the atomic words that
// carry its state: a 32-bit value is two 16-bit halves, each in its own atomic<u32> with a
// READY bit (bit 16). A tile has four words: aggregate low/high, inclusive low/high. A word
// changes at most once per run, from 0 to READY | half (the states are zeroed by a dispatch
// before this one), and only ever to the halves of one value: the owner alone writes the
// inclusive words; the aggregate words are written by the owner and, when PUBLISH_FALLBACK
// is on (integer operators and min/max, where every workgroup's reduction of a tile is the
// same bits), by workgroups that fell back on that tile, with those same bits. A reader that
// sees both halves READY therefore holds both halves of one value.
//
// The preamble sets the state layout (ops/chained_scan.py, Lookback.preamble):
// STATE_WORDS 4: aggregate low/high and inclusive low/high, each half with READY (bit 16);
//   INC_FIRST reads the inclusive words first and the aggregate words only where the
//   inclusive value is missing.
// STATE_WORDS 2: one low and one high word, each half with its kind in bits 16-17
//   (AGGREGATE 1, INCLUSIVE 2). Only the owner writes them: the aggregate, then the
//   inclusive value, so a word goes 0 -> aggregate half -> inclusive half. A reader takes
//   the value only when both words carry the same kind; each kind has one value per tile,
//   so the halves are the halves of one value. (Fallbacks do not publish here.)
// PREFETCH: the including kernel calls chained_prefetch() right after issuing its tile's
//   loads, so the first window's state reads travel while the tile loads are in flight;
//   that first window may be stale, so the spin budget of the first look-back is one more.
//
// One of chained_window_subgroup.wgsl / chained_window_workgroup.wgsl /
// chained_window_barrier.wgsl defines lookback_windows(), the reading of predecessors'
// states a window at a time, and window_slot(), an invocation's slot in the window.
//
// The including kernel defines: `alias ChainT` (the value type, 32 bits), chain_identity(),
// chain_combine(a, b) (associative, kept in order), `Invocation` (with `index`), `WG`, and
// chain_reduce_tile(inv, tile) -> ChainT, the in-order combination of tile `tile`'s input,
// called by the whole workgroup in uniform control flow.

override SPIN_BUDGET: u32 = 4u;    // polls of a NOT READY predecessor before falling back
override PUBLISH_FALLBACK: bool = false;
// Test modes (FAULT_MODE != 0): tiles with tile % FAULT_EVERY == FAULT_PHASE misbehave.
// 1: publish nothing; 2: spin FAULT_DELAY rounds before publishing; 3: publish the
// aggregate but never the inclusive value. 4 (every tile; measurements only, the results
// are wrong): no look-back, the prefix is the identity: what the kernel costs without it.
override FAULT_MODE: u32 = 0u;
override FAULT_EVERY: u32 = 1u;
override FAULT_PHASE: u32 = 0u;
override FAULT_DELAY: u32 = 20000u;
override STATS: bool = false;  // count fallbacks and look-back rounds into chain_stats

const STATE_READY: u32 = 0x10000u;  // 4-word states: a half is there
const KIND_SHIFT: u32 = 16u;          // 2-word states: the half's kind (AGGREGATE, INCLUSIVE)
const NOT_READY: u32 = 0u;
const AGGREGATE: u32 = 1u;
const INCLUSIVE: u32 = 2u;
const LOOKBACK_DONE: u32 = 0xffffffffu;
const NO_SLOT: u32 = 0xffffffffu;  // window_slot() of an invocation that reads no state

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
// chained_prefetch's reads of the first window (this invocation's slots), when PREFETCH
var<private> lb_pre: array<TileState, LOOKBACK_PER_LANE>;

fn faulty(tile: u32) -> bool {
  return FAULT_MODE != 0u && (chain.tile_base + tile) % FAULT_EVERY == FAULT_PHASE;
}

// Both halves of `value` into the aggregate (kind 0) or inclusive (kind 1) state of
// `tile`, by its owner.
fn publish(tile: u32, kind: u32, value: ChainT) {
  let bits = bitcast<u32>(value);
  if (STATE_WORDS == 4u) {
    let w = (chain.tile_base + tile) * 4u + kind * 2u;
    atomicStore(&tile_states[w], STATE_READY | (bits & 0xffffu));
    atomicStore(&tile_states[w + 1u], STATE_READY | (bits >> 16u));
  } else {
    let w = (chain.tile_base + tile) * 2u;
    let flag = (kind + 1u) << KIND_SHIFT;
    atomicStore(&tile_states[w], flag | (bits & 0xffffu));
    atomicStore(&tile_states[w + 1u], flag | (bits >> 16u));
  }
}

// A fallback's reduction of `tile` into its aggregate words (PUBLISH_FALLBACK only: the
// same bits as the owner's). 4-word states only: a 2-word state's words also carry the
// inclusive value, which a late aggregate store would overwrite, so there the owner is
// the only writer (the host turns PUBLISH_FALLBACK off).
fn publish_fallback(tile: u32, value: ChainT) {
  if (STATE_WORDS == 4u) {
    publish(tile, 0u, value);
  }
}

struct TileState {
  status: u32,
  value: ChainT,
}

fn halves(lo: u32, hi: u32) -> ChainT {
  return bitcast<ChainT>((lo & 0xffffu) | (hi << 16u));
}

// The state of `tile`: its inclusive value if both halves are there, else its aggregate
// if both halves are there, else NOT READY.
fn read_state(tile: u32) -> TileState {
  if (STATE_WORDS == 2u) {
    let w = (chain.tile_base + tile) * 2u;
    let lo = atomicLoad(&tile_states[w]);
    let hi = atomicLoad(&tile_states[w + 1u]);
    let kind = lo >> KIND_SHIFT;
    if (kind == hi >> KIND_SHIFT && kind != NOT_READY) {
      return TileState(kind, halves(lo, hi));
    }
    return TileState(NOT_READY, chain_identity());
  }
  let w = (chain.tile_base + tile) * 4u;
  let inc_lo = atomicLoad(&tile_states[w + 2u]);
  let inc_hi = atomicLoad(&tile_states[w + 3u]);
  if (INC_FIRST && (inc_lo & inc_hi & STATE_READY) != 0u) {
    return TileState(INCLUSIVE, halves(inc_lo, inc_hi));
  }
  let agg_lo = atomicLoad(&tile_states[w]);
  let agg_hi = atomicLoad(&tile_states[w + 1u]);
  if ((inc_lo & inc_hi & STATE_READY) != 0u) {
    return TileState(INCLUSIVE, halves(inc_lo, inc_hi));
  }
  if ((agg_lo & agg_hi & STATE_READY) != 0u) {
    return TileState(AGGREGATE, halves(agg_lo, agg_hi));
  }
  return TileState(NOT_READY, chain_identity());
}

// The combination of everything before this dispatch: the previous chunk's total.
fn chain_carry() -> ChainT {
  if (chain.has_carry == 1u) {
    return chunk_carry[chain.carry_in];
  }
  return chain_identity();
}

// Slot k of the window that ends before tile `end`: tile end - 1 - k, or, past the
// dispatch's tile 0, the carry as an inclusive value.
fn window_state(end: u32, k: u32, carry: ChainT) -> TileState {
  if (k < end) {
    return read_state(end - 1u - k);
  }
  return TileState(INCLUSIVE, carry);
}

// PREFETCH: read this invocation's slots of the first window (the one ending before
// `tile`) now, while the caller's tile loads are in flight. Call right after issuing them.
fn chained_prefetch(inv: Invocation, tile: u32) {
  if (!PREFETCH) {
    return;
  }
  let slot = window_slot(inv);
  if (slot == NO_SLOT) {
    return;
  }
  let carry = chain_carry();
  for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
    lb_pre[j] = window_state(tile, slot * LOOKBACK_PER_LANE + j, carry);
  }
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
    lb_carry = chain_carry();
    if (faulty(tile) && FAULT_MODE == 4u) {
      lb_prefix = chain_identity();
      lb_end = LOOKBACK_DONE;
    }
  }
  var first = true;  // the first window may use chained_prefetch's reads
  loop {
    let end = workgroupUniformLoad(&lb_end);
    if (end == LOOKBACK_DONE) {
      break;
    }
    // Windows of predecessors, until the look-back is finished or a predecessor stays
    // NOT READY past the spin budget (then lb_fallback names it).
    lookback_windows(inv, end, &acc, &polls, first && PREFETCH);
    first = false;
    let fallback = workgroupUniformLoad(&lb_fallback);
    if (fallback != LOOKBACK_DONE) {
      // Decoupled fallback: reduce the predecessor's input ourselves and go on before it.
      let reduced = chain_reduce_tile(inv, fallback);
      if (t == 0u) {
        acc = chain_combine(reduced, acc);
        if (PUBLISH_FALLBACK) {
          publish_fallback(fallback, reduced);
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
