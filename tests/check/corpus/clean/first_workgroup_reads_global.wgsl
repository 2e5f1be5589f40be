// A radix scatter's first workgroup takes where each digit starts from the global
// histogram (the previous dispatch's totals, copied into partition 0), while every other
// workgroup adds into its own partition of the same buffer. Partition w is
// `pass_hist[w * RADIX + d]`: workgroup 0's reads stay in partition 0, which no other
// workgroup adds into.
const RADIX = 256u;
@group(0) @binding(0) var<storage, read_write> pass_hist: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> offsets: array<u32>;

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (wid.x == 0u) {
    offsets[lid] = atomicLoad(&pass_hist[lid]);
  } else {
    atomicAdd(&pass_hist[wid.x * RADIX + (keys[wid.x * RADIX + lid] & 255u)], 1u);
  }
}
