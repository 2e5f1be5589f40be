// A float sum accumulated with a compare-exchange loop, then read as if final.
@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> sum_bits: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> mean: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  var old = atomicLoad(&sum_bits);
  loop {
    let new_bits = bitcast<u32>(bitcast<f32>(old) + xs[gid.x]);
    let r = atomicCompareExchangeWeak(&sum_bits, old, new_bits);
    if (r.exchanged) { break; }
    old = r.old_value;
  }
  if (gid.x == 0u) {
    mean[0] = bitcast<f32>(atomicLoad(&sum_bits)) / f32(nwg.x * 64u); // expect: same-dispatch-read
  }
}
