// The look-back window of chained_lookback.wgsl over several subgroups (adapters whose
// subgroups are consecutive invocations): the first LOOKBACK_SUBGROUPS subgroups (the
// preamble sets it) read LOOKBACK_PER_LANE predecessors per lane, so one window covers up
// to LOOKBACK_SUBGROUPS * S * LOOKBACK_PER_LANE tiles (256 with 8 subgroups of 32) in one
// round trip to the states. Each subgroup combines its usable run as
// chained_window_subgroup.wgsl does; invocation 0 then combines the subgroups' runs in
// order, up to the first subgroup that met a NOT READY or INCLUSIVE state. Two workgroup
// barriers per window.

const NO_LANE: u32 = 0xffffffffu;
const STEP_DONE: u32 = 0xffffffffu;      // lb_step: the look-back is finished
const STEP_FALLBACK: u32 = 0xfffffffeu;  // lb_step: lb_fallback names a tile to reduce

var<workgroup> lbw_value: array<ChainT, LOOKBACK_SUBGROUPS>;  // each subgroup's usable run
var<workgroup> lbw_taken: array<u32, LOOKBACK_SUBGROUPS>;     // tiles in it
var<workgroup> lbw_stop: array<u32, LOOKBACK_SUBGROUPS>;      // what ended it (AGGREGATE: nothing)
var<workgroup> lb_step: u32;  // tiles the window moved back by, or STEP_DONE / STEP_FALLBACK

// Subgroups taking part: LOOKBACK_SUBGROUPS, or all of them if the workgroup has fewer.
fn window_groups(inv: Invocation) -> u32 {
  return min(LOOKBACK_SUBGROUPS, WG / inv.sg_size);
}

// The window's slot of invocation `inv`: its index, in the first window_groups() subgroups.
fn window_slot(inv: Invocation) -> u32 {
  return select(NO_SLOT, inv.index, inv.index < window_groups(inv) * inv.sg_size);
}

// Windows from tile start - 1 backwards, until finished (lb_end = LOOKBACK_DONE, lb_prefix
// set) or a NOT READY predecessor outlasts the spin budget (lb_fallback names it). Each
// window moves back by at least one tile or counts one poll, so the loop ends; after a
// prefetched first window (`prefetched`: it may be stale) the budget is one more. Called by the whole workgroup in
// uniform control flow.
fn lookback_windows(inv: Invocation, start: u32, acc: ptr<function, ChainT>, polls: ptr<function, u32>,
                    prefetched: bool) {
  let lane = inv.sg_lane;
  let s = inv.sg_size;
  let g = inv.index / s;
  let groups = window_groups(inv);
  let reader = g < groups;  // uniform in each subgroup
  var end = start;
  var pre = prefetched;
  let budget = SPIN_BUDGET + select(0u, 1u, prefetched);
  loop {
    // Invocation i reads slots i * LOOKBACK_PER_LANE + j (tiles end - 1 - slot, nearest
    // first) and combines its usable run, as in chained_window_subgroup.wgsl.
    var mine = chain_identity();
    var taken = 0u;
    var stop = AGGREGATE;
    if (reader) {
      for (var j = 0u; j < LOOKBACK_PER_LANE; j++) {
        var st: TileState;
        if (pre) {
          st = lb_pre[j];
        } else {
          st = window_state(end, inv.index * LOOKBACK_PER_LANE + j, lb_carry);
        }
        if (stop == AGGREGATE) {
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
    }
    // This subgroup's usable run: its lanes up to the first one that stopped.
    let first_stop = subgroupMin(select(NO_LANE, lane, stop != AGGREGATE));
    let last = min(first_stop, s - 1u);
    let moved = subgroupAdd(select(0u, taken, lane <= last));
    let stopped = subgroupShuffle(stop, last);
    var y = select(chain_identity(), mine, lane <= last);
    for (var d = 1u; d < s; d = d << 1u) {
      let earlier = subgroupShuffleDown(y, d);
      if (lane + d < s) {
        y = chain_combine(earlier, y);
      }
    }
    if (reader && lane == 0u) {
      lbw_value[g] = y;
      lbw_taken[g] = moved;
      lbw_stop[g] = select(AGGREGATE, stopped, first_stop != NO_LANE);
    }
    workgroupBarrier();
    if (inv.index == 0u) {
      // The subgroups' runs in tile order (later subgroups hold earlier tiles), up to the
      // first one that stopped.
      var step = 0u;
      var finished = false;
      for (var k = 0u; k < groups; k++) {
        if (lbw_taken[k] > 0u) {
          *acc = chain_combine(lbw_value[k], *acc);
          step += lbw_taken[k];
        }
        if (lbw_stop[k] != AGGREGATE) {
          finished = lbw_stop[k] == INCLUSIVE;
          break;
        }
      }
      if (STATS) {
        atomicAdd(&chain_stats[1], 1u);
      }
      if (finished) {
        lb_prefix = *acc;
        lb_end = LOOKBACK_DONE;
        step = STEP_DONE;
      } else if (step > 0u) {
        *polls = 0u;
      } else {
        // The nearest predecessor is NOT READY: poll again, at most SPIN_BUDGET times (one
        // more after a prefetched window, which may be stale).
        if (STATS) {
          atomicAdd(&chain_stats[2], 1u);
        }
        *polls += 1u;
        if (*polls > budget) {
          lb_fallback = end - 1u;
          *polls = 0u;
          step = STEP_FALLBACK;
        }
      }
      lb_step = step;
    }
    let step = workgroupUniformLoad(&lb_step);
    if (step == STEP_DONE || step == STEP_FALLBACK) {
      break;
    }
    end -= step;
    pre = false;
  }
}
