// A cell claimed with a compare-exchange from FREE to TAKEN, never set back: whoever
// exchanged it processes it once. The exchange decides who works, not whether data that
// someone else wrote is ready.
const FREE = 0u;
const TAKEN = 2u;
@group(0) @binding(0) var<storage, read_write> tags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> dist: array<f32>;
@group(0) @binding(2) var<storage, read> neighbours: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let cell = neighbours[gid.x];
  let r = atomicCompareExchangeWeak(&tags[cell], FREE, TAKEN);
  if (r.exchanged) {
    dist[cell] = dist[cell] + 1.0;
  }
}
