// Float atomic add with a compare-exchange loop: the loop writes what it waits on.
@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> sum_bits: atomic<u32>;

fn atomic_add_f32(p: ptr<storage, atomic<u32>, read_write>, x: f32) {
  var old = atomicLoad(p);
  loop {
    let r = atomicCompareExchangeWeak(p, old, bitcast<u32>(bitcast<f32>(old) + x));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x < arrayLength(&xs)) {
    atomic_add_f32(&sum_bits, xs[gid.x]);
  }
}
