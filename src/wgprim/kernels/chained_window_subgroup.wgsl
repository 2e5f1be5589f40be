// The look-back window of chained_lookback.wgsl with subgroup operations (adapters whose
// subgroups are consecutive invocations): the first subgroup reads LOOKBACK_PER_LANE
// predecessors per lane (the preamble sets it), finds the nearest NOT READY or INCLUSIVE
// state with one subgroupMin, and combines the usable states in order with shuffles,
// window after window, without a workgroup barrier until the look-back is finished or
// needs a fallback.
//
// No branch between subgroup operations (selects instead, and reads made whether needed
// or not): Vulkan without maximal reconvergence does not promise that invocations which
// took different branches run the next subgroup operation together, and on an NVIDIA H200
// a version with branches here summed wrong once its loops were unrolled.

const NO_LANE: u32 = 0xffffffffu;

// Windows from tile end - 1 backwards, until finished (lb_end = LOOKBACK_DONE, lb_prefix
// set) or a NOT READY predecessor outlasts the spin budget (lb_fallback names it). Each
// window either moves back by at least one tile or counts one poll, so the loop ends.
// Called by the whole workgroup in uniform control flow.
fn lookback_windows(inv: Invocation, start: u32, acc: ptr<function, ChainT>, polls: ptr<function, u32>) {
  if (inv.index >= inv.sg_size) {
    return;  // the whole first subgroup goes on, the others wait at the caller's barrier
  }
  let lane = inv.sg_lane;
  var end = start;
  loop {
    // Lane l reads tiles end - 1 - (l * LOOKBACK_PER_LANE + j), nearest first, all at
    // once; the slot just before the dispatch's tile 0 holds the carry, as an inclusive
    // value. Then it combines its usable run: aggregates up to the first NOT READY
    // (excluded) or INCLUSIVE (included) state.
    var states: array<TileState, LOOKBACK_PER_LANE>;
    // unroll
    for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
      let k = lane * LOOKBACK_PER_LANE + j;
      let read = read_state(select(0u, end - 1u - k, k < end));  // read anyway: no branch
      states[j] = TileState(select(INCLUSIVE, read.status, k < end), select(lb_carry, read.value, k < end));
    }
    var mine = chain_identity();
    var taken = 0u;
    var stop = AGGREGATE;  // what ended this lane's run: AGGREGATE (none), NOT_READY, INCLUSIVE
    // unroll
    for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
      let st = states[j];
      let usable = stop == AGGREGATE && st.status != NOT_READY;
      mine = select(mine, chain_combine(st.value, mine), usable);
      taken += select(0u, 1u, usable);
      stop = select(stop, st.status, stop == AGGREGATE && st.status != AGGREGATE);
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
      y = select(y, chain_combine(earlier, y), lane + d < inv.sg_size);
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
    // The nearest predecessor is NOT READY: poll again, at most lb_spin_budget (SPIN_BUDGET) times.
    if (STATS && lane == 0u) {
      atomicAdd(&chain_stats[2], 1u);
    }
    *polls += 1u;
    if (*polls > lb_spin_budget) {
      if (lane == 0u) {
        lb_fallback = end - 1u;
      }
      *polls = 0u;
      break;
    }
  }
}
