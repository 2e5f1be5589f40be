// A decoupled fallback whose lock word lives in workgroup memory and is read directly
// rather than with workgroupUniformLoad. After each barrier every invocation reads the
// same lock, so invocation 0's bounded look-back (a spin budget, then it steps back and
// does the tile itself) bounds everyone's loop: no spin-wait. The barriers under that
// read are still non-uniform by WGSL's rules (workgroupUniformLoad would fix it), and the
// twin without a budget still waits.
@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>>;
var<workgroup> locked: u32;
const BUDGET = 8u;

@compute @workgroup_size(64)
fn bounded(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    locked = 1u;
  }
  workgroupBarrier();
  var lookback = wid.x;
  while (locked == 1u) {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    workgroupBarrier(); // expect: nonuniform-barrier
    if (li == 0u) {
      for (var spins = 0u; spins < BUDGET; spins++) {
        let flag = select(2u, atomicLoad(&flags[lookback - 1u]), lookback > 0u);
        if (flag == 2u) {  // an inclusive prefix: done
          locked = 0u;
          break;
        }
        if (flag == 1u) {  // an aggregate: step back over it
          lookback -= 1u;
        }
      }
    }
    workgroupBarrier(); // expect: nonuniform-barrier
    if (locked == 1u) {
      // the fallback: the whole workgroup reduces tile `lookback - 1` itself
      if (li == 0u) {
        lookback -= 1u;
      }
      workgroupBarrier(); // expect: nonuniform-barrier
    }
  }
  atomicStore(&flags[wid.x], 2u);
}

@compute @workgroup_size(64)
fn unbounded(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    locked = 1u;
  }
  workgroupBarrier();
  while (locked == 1u) { // expect: spin-wait
    workgroupBarrier(); // expect: nonuniform-barrier
    if (li == 0u) {
      if (wid.x == 0u || atomicLoad(&flags[wid.x - 1u]) == 2u) {
        locked = 0u;
      }
    }
    workgroupBarrier(); // expect: nonuniform-barrier
  }
  atomicStore(&flags[wid.x], 2u);
}

var<workgroup> partial: array<u32, 64>;
@group(0) @binding(1) var<storage, read> values: array<u32>;

// The fallback reduces a tile in workgroup memory, each invocation its own slot, and
// invocation 0 decides from the total whether to unlock: what differs between
// invocations still reaches the lock only through workgroup memory.
@compute @workgroup_size(64)
fn bounded_with_reduction(@builtin(workgroup_id) wid: vec3<u32>,
                          @builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    locked = 1u;
  }
  workgroupBarrier();
  var lookback = wid.x;
  while (locked == 1u) {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    workgroupBarrier(); // expect: nonuniform-barrier
    if (li == 0u) {
      for (var spins = 0u; spins < BUDGET; spins++) {
        let flag = select(2u, atomicLoad(&flags[lookback - 1u]), lookback > 0u);
        if (flag == 2u) {
          locked = 0u;
          break;
        }
        if (flag == 1u) {
          lookback -= 1u;
        }
      }
    }
    workgroupBarrier(); // expect: nonuniform-barrier
    if (locked == 1u) {
      partial[li] = values[(lookback - 1u) * 64u + li];
      for (var half = 32u; half > 0u; half >>= 1u) {
        workgroupBarrier(); // expect: nonuniform-barrier
        if (li < half) {
          partial[li] += partial[li + half];
        }
      }
      workgroupBarrier(); // expect: nonuniform-barrier
      if (li == 0u) {
        let total = partial[0];
        if (total == 0u || lookback == 1u) {
          locked = 0u;
        } else {
          lookback -= 1u;
        }
      }
      workgroupBarrier(); // expect: nonuniform-barrier
    }
  }
  atomicStore(&flags[wid.x], 2u);
}
