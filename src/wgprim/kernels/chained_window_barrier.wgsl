// The look-back window of chained_lookback.wgsl with workgroup memory and barriers only
// (adapters without subgroups): the first LOOKBACK_WINDOW invocations read one
// predecessor's state each, invocation 0 combines them in order.

const LOOKBACK_WINDOW: u32 = 32u;

var<workgroup> lb_status: array<u32, LOOKBACK_WINDOW>;
var<workgroup> lb_value: array<ChainT, LOOKBACK_WINDOW>;

// One window from tile end - 1 backwards: sets lb_end (progress, or LOOKBACK_DONE with
// lb_prefix) or, past the spin budget on a NOT READY predecessor, lb_fallback. Called by
// the whole workgroup in uniform control flow.
fn lookback_windows(inv: Invocation, end: u32, acc: ptr<function, ChainT>, polls: ptr<function, u32>) {
  let t = inv.index;
  // Invocation k reads tile end - 1 - k (nearest first); the slot just before the
  // dispatch's tile 0 holds the carry, as an inclusive value.
  if (t < LOOKBACK_WINDOW) {
    var s = TileState(INCLUSIVE, lb_carry);
    if (t < end) {
      s = read_state(end - 1u - t);
    }
    lb_status[t] = s.status;
    lb_value[t] = s.value;
  }
  workgroupBarrier();
  if (t == 0u) {
    var k = 0u;
    var finished = false;
    for (; k < LOOKBACK_WINDOW; k++) {
      let status = lb_status[k];
      if (status == NOT_READY) {
        break;
      }
      *acc = chain_combine(lb_value[k], *acc);
      if (status == INCLUSIVE) {
        finished = true;
        break;
      }
    }
    if (STATS) {
      atomicAdd(&chain_stats[1], 1u);
    }
    if (finished) {
      lb_prefix = *acc;
      lb_end = LOOKBACK_DONE;
    } else if (k > 0u) {
      lb_end = end - k;
      *polls = 0u;
    } else {
      // The nearest predecessor is NOT READY: poll again, at most lb_spin_budget (SPIN_BUDGET) times.
      if (STATS) {
        atomicAdd(&chain_stats[2], 1u);
      }
      *polls += 1u;
      if (*polls > lb_spin_budget) {
        lb_fallback = end - 1u;
        *polls = 0u;
      }
    }
  }
}
