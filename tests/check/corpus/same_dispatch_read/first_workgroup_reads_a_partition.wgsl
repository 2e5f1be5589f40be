// The twin of clean/first_workgroup_reads_global.wgsl whose first workgroup reads
// partition 1, which workgroup 1 adds into in this same dispatch: a partial count.
const RADIX = 256u;
@group(0) @binding(0) var<storage, read_write> pass_hist: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> offsets: array<u32>;

@compute @workgroup_size(256)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (wid.x == 0u) {
    offsets[lid] = atomicLoad(&pass_hist[RADIX + lid]);  // expect: same-dispatch-read
  } else {
    atomicAdd(&pass_hist[wid.x * RADIX + (keys[wid.x * RADIX + lid] & 255u)], 1u);
  }
}
