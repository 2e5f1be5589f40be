struct Stats { max_bits: atomic<u32>, count: atomic<u32> }
@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> stats: Stats;
@group(0) @binding(2) var<storage, read_write> normalized: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let x = xs[gid.x];
  atomicMax(&stats.max_bits, bitcast<u32>(abs(x)));
  let biggest = bitcast<f32>(atomicLoad(&stats.max_bits)); // expect: same-dispatch-read
  normalized[gid.x] = x / biggest;
}
