// The reference example: one invocation spins on a flag in a struct.
struct Signal { ready: atomic<u32>, payload: u32 }
@group(0) @binding(0) var<storage, read_write> signal: Signal;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    loop { // expect: spin-wait
      if (atomicLoad(&signal.ready) == 1u) { break; }
    }
  }
  workgroupBarrier();
}
