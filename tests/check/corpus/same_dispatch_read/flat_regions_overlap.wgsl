// Regions of one flat buffer that do meet: the previous workgroup's window, a window one
// word wide that slides onto the next workgroup's, and a range that runs into the bins
// being counted. Each load may see a partial count.
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> bins: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(global_invocation_id) gid: vec3<u32>) {
  let key = keys[gid.x];
  atomicAdd(&hist[wid.x * 64u + (key & 63u)], 1u);
  atomicAdd(&counts[wid.x], 1u);
  atomicAdd(&bins[key & 255u], 1u);
  storageBarrier();
  if (wid.x > 0u) {
    out[gid.x] = atomicLoad(&hist[(wid.x - 1u) * 64u + li]); // expect: same-dispatch-read
  }
  out[gid.x] += atomicLoad(&counts[wid.x + 1u]); // expect: same-dispatch-read
  out[gid.x] += atomicLoad(&bins[200u + (key >> 26u)]); // expect: same-dispatch-read
}
