// Per-workgroup rows, but the read takes the previous workgroup's row: that workgroup may
// still be adding into it.
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> rows: array<array<atomic<u32>, 64>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let bin = keys[wid.x * 64u + li] & 63u;
  atomicAdd(&rows[wid.x][bin], 1u);
  storageBarrier();
  if (wid.x > 0u) {
    out[wid.x * 64u + li] = atomicLoad(&rows[wid.x - 1u][li]); // expect: same-dispatch-read
  }
}
