// A lock taken with compare-exchange from a constant "free" value: it succeeds only once
// the holder lets go, so the loop waits on the lock word.
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: atomic<u32>;

fn acquire() {
  loop { // expect: spin-wait
    let r = atomicCompareExchangeWeak(&lock, 0u, 1u);
    if (r.exchanged) { break; }
  }
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  acquire();
  atomicAdd(&total, wid.x);
  atomicStore(&lock, 0u);
}
