// The look-back window of chained_lookback.wgsl with subgroup operations (adapters whose
// subgroups are consecutive invocations): the first subgroup reads one predecessor per
// lane, finds the nearest NOT READY and INCLUSIVE ones with two subgroupMin, and combines
// the usable states in order with shuffles, window after window, without a workgroup
// barrier until the look-back is finished or needs a fallback.

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
    // Lane k reads tile end - 1 - k (nearest first); the slot just before the dispatch's
    // tile 0 holds the carry, as an inclusive value.
    var s = TileState(INCLUSIVE, lb_carry);
    if (lane < end) {
      s = read_state(end - 1u - lane);
    }
    let first_not_ready = subgroupMin(select(NO_LANE, lane, s.status == NOT_READY));
    let first_inclusive = subgroupMin(select(NO_LANE, lane, s.status == INCLUSIVE));
    let finished = first_inclusive < first_not_ready;
    // lanes [0, take) are usable: aggregates, and the inclusive one that ends the look-back
    let take = min(select(first_not_ready, first_inclusive + 1u, finished), inv.sg_size);
    // Their combination in tile order (higher lanes are earlier tiles), identities elsewhere.
    var y = select(chain_identity(), s.value, lane < take);
    for (var d = 1u; d < inv.sg_size; d = d << 1u) {
      let earlier = subgroupShuffleDown(y, d);
      if (lane + d < inv.sg_size) {
        y = chain_combine(earlier, y);
      }
    }
    if (take > 0u) {
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
    if (take > 0u) {
      end -= take;
      *polls = 0u;
      continue;
    }
    // The nearest predecessor is NOT READY: poll again, at most SPIN_BUDGET times.
    if (STATS && lane == 0u) {
      atomicAdd(&chain_stats[2], 1u);
    }
    *polls += 1u;
    if (*polls > SPIN_BUDGET) {
      if (lane == 0u) {
        lb_fallback = end - 1u;
      }
      *polls = 0u;
      break;
    }
  }
}
