// wgprim's single-pass scan look-back (chained_lookback.wgsl + chained_window_subgroup.wgsl)
// with its poll made unbounded: a predecessor that stays NOT READY is polled forever
// instead of being reduced by this workgroup after SPIN_BUDGET polls. Without the fallback
// the window loop can only end when another workgroup publishes.
alias ChainT = u32;
fn chain_identity() -> u32 { return 0u; }
fn chain_combine(a: u32, b: u32) -> u32 { return a + b; }
const LOOKBACK_PER_LANE: u32 = 1u;
struct Invocation {
  @builtin(local_invocation_index) index: u32,
  @builtin(workgroup_id) wid: vec3<u32>,
  @builtin(subgroup_size) sg_size: u32,
  @builtin(subgroup_invocation_id) sg_lane: u32,
}
fn chain_reduce_tile(inv: Invocation, tile: u32) -> u32 {
  return 0u;
}

override SPIN_BUDGET: u32 = 4u;    // polls of a NOT READY predecessor before falling back
override PUBLISH_FALLBACK: bool = false;
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

struct Chain {
  tile_base: u32,  // state index of this dispatch's tile 0 (4 words per tile)
  has_carry: u32,  // 1: chunk_carry[carry_in] combines everything before this dispatch
  carry_in: u32,
  carry_out: u32,  // the last tile writes its inclusive value to chunk_carry[carry_out]
}

@group(0) @binding(10) var<uniform> chain: Chain;
@group(0) @binding(11) var<storage, read_write> tile_states: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> chunk_carry: array<ChainT>;
@group(0) @binding(13) var<storage, read_write> chain_stats: array<atomic<u32>>;

var<workgroup> lb_end: u32;       // tiles [lb_end, tile) are combined; LOOKBACK_DONE: finished
var<workgroup> lb_fallback: u32;  // the tile to reduce ourselves, or LOOKBACK_DONE
var<workgroup> lb_prefix: ChainT;
var<workgroup> lb_carry: ChainT;
var<workgroup> lb_aggregate: ChainT;  // set by the including kernel before chained_prefix

fn faulty(tile: u32) -> bool {
  return FAULT_MODE != 0u && (chain.tile_base + tile) % FAULT_EVERY == FAULT_PHASE;
}

fn publish(tile: u32, kind: u32, value: ChainT) {
  let bits = bitcast<u32>(value);
  let w = (chain.tile_base + tile) * 4u + kind * 2u;
  atomicStore(&tile_states[w], STATE_READY | (bits & 0xffffu));
  atomicStore(&tile_states[w + 1u], STATE_READY | (bits >> 16u));
}

struct TileState {
  status: u32,
  value: ChainT,
}

fn read_state(tile: u32) -> TileState {
  let w = (chain.tile_base + tile) * 4u;
  let inc_lo = atomicLoad(&tile_states[w + 2u]);
  let inc_hi = atomicLoad(&tile_states[w + 3u]);
  let agg_lo = atomicLoad(&tile_states[w]);
  let agg_hi = atomicLoad(&tile_states[w + 1u]);
  if ((inc_lo & inc_hi & STATE_READY) != 0u) {
    return TileState(INCLUSIVE, bitcast<ChainT>((inc_lo & 0xffffu) | (inc_hi << 16u)));
  }
  if ((agg_lo & agg_hi & STATE_READY) != 0u) {
    return TileState(AGGREGATE, bitcast<ChainT>((agg_lo & 0xffffu) | (agg_hi << 16u)));
  }
  return TileState(NOT_READY, chain_identity());
}

fn fault_delay(tile: u32) {
  var seen = 0u;
  for (var k = 0u; k < FAULT_DELAY; k++) {
    seen |= atomicLoad(&tile_states[(chain.tile_base + tile) * 4u]);
  }
  if (seen == 0x5a5a5a5au) {  // never true: keeps the loop from being optimized away
    atomicAdd(&chain_stats[3], 1u);
  }
}

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
    lb_carry = chain_identity();
    if (chain.has_carry == 1u) {
      lb_carry = chunk_carry[chain.carry_in];
    }
  }
  loop { // expect: spin-wait (through lookback_windows, whose poll has no budget)
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

const NO_LANE: u32 = 0xffffffffu;

fn lookback_windows(inv: Invocation, start: u32, acc: ptr<function, ChainT>, polls: ptr<function, u32>) {
  if (inv.index >= inv.sg_size) {
    return;  // the whole first subgroup goes on, the others wait at the caller's barrier
  }
  let lane = inv.sg_lane;
  var end = start;
  loop { // expect: spin-wait
    // Lane l reads tiles end - 1 - (l * LOOKBACK_PER_LANE + j), nearest first, all at
    // once; the slot just before the dispatch's tile 0 holds the carry, as an inclusive
    // value. Then it combines its usable run: aggregates up to the first NOT READY
    // (excluded) or INCLUSIVE (included) state.
    var states: array<TileState, LOOKBACK_PER_LANE>;
    for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
      let k = lane * LOOKBACK_PER_LANE + j;
      states[j] = TileState(INCLUSIVE, lb_carry);
      if (k < end) {
        states[j] = read_state(end - 1u - k);
      }
    }
    var mine = chain_identity();
    var taken = 0u;
    var stop = AGGREGATE;  // what ended this lane's run: AGGREGATE (none), NOT_READY, INCLUSIVE
    for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
      if (stop == AGGREGATE) {
        let st = states[j];
        if (st.status == NOT_READY) {
          stop = NOT_READY;
        } else {
          mine = chain_combine(st.value, mine);
          taken += 1u;
          if (st.status == INCLUSIVE) {
            stop = INCLUSIVE;
          }
        }
      }
    }
    // The nearest lane whose run stopped: lanes before it are all aggregates, it adds its
    // partial run, lanes after it add nothing.
    let first_stop = subgroupMin(select(NO_LANE, lane, stop != AGGREGATE));
    let finished = first_stop != NO_LANE && subgroupShuffle(stop, min(first_stop, inv.sg_size - 1u)) == INCLUSIVE;
    let last = min(first_stop, inv.sg_size - 1u);
    let moved = subgroupAdd(select(0u, taken, lane <= last));
    // The usable runs combined in tile order (higher lanes are earlier tiles).
    var y = select(chain_identity(), mine, lane <= last);
    for (var d = 1u; d < inv.sg_size; d = d << 1u) {
      let earlier = subgroupShuffleDown(y, d);
      if (lane + d < inv.sg_size) {
        y = chain_combine(earlier, y);
      }
    }
    if (moved > 0u) {
      *acc = chain_combine(subgroupShuffle(y, 0u), *acc);
    }
    if (STATS && lane == 0u) {
      atomicAdd(&chain_stats[1], 1u);
    }
    if (finished) {
      if (lane == 0u) {
        lb_prefix = *acc;
        lb_end = LOOKBACK_DONE;
      }
      break;
    }
    if (moved > 0u) {
      end -= moved;
      *polls = 0u;
      continue;
    }
    // The nearest predecessor is NOT READY: poll again, at most SPIN_BUDGET times.
    if (STATS && lane == 0u) {
      atomicAdd(&chain_stats[2], 1u);
    }
    *polls += 1u;  // counted, but no longer bounded: waits for another workgroup
  }
}

@compute @workgroup_size(256)
fn main(inv: Invocation) {
  if (inv.index == 0u) {
    lb_aggregate = 1u;
  }
  let prefix = chained_prefix(inv, inv.wid.x, false);
}
