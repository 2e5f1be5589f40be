// Locks whose wait is a `continue`: the loop's only `break` comes after the test-and-set,
// so the exit depends on it. One lock in workgroup memory (invocations of one workgroup
// wait for each other), one ticket taken with a lock-free compare-exchange (not a wait)
// and then waited for (a wait).
var<workgroup> wg_lock: atomic<u32>;
@group(0) @binding(0) var<storage, read_write> next_ticket: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> now_serving: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> hits: atomic<u32>;

fn take_ticket() -> u32 {
  loop {
    let seen = atomicLoad(&next_ticket);
    let r = atomicCompareExchangeWeak(&next_ticket, seen, seen + 1u);
    if (r.exchanged) { return r.old_value; }
  }
}

@compute @workgroup_size(2)
fn main() {
  loop { // expect: spin-wait
    if (atomicOr(&wg_lock, 1u) == 1u) { continue; }
    atomicAdd(&hits, 1u);
    atomicAnd(&wg_lock, 0u);
    break;
  }
  let mine = take_ticket();
  loop { // expect: spin-wait
    if (atomicLoad(&now_serving) != mine) { continue; }
    break;
  }
  atomicAdd(&hits, 1u);
  atomicStore(&now_serving, mine + 1u);
}
