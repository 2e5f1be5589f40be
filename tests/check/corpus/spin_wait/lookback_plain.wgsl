// the loop waits for another workgroup to publish its state
@group(0) @binding(4) var<storage, read_write> spine: array<array<atomic<u32>, 2>>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) threadid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let lookback_id = wid.x - 1u;
  var incl_bal = 0u;
  while(incl_bal != 3u){  // expect: spin-wait
      incl_bal = atomicLoad(&spine[lookback_id][threadid.x]);
  }
}
