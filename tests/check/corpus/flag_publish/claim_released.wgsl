// The twin of a claim that is a lock: the word is set back to FREE after the cell's data is
// written, so the next invocation that exchanges it reads that data on the strength of the
// release: a publication, which atomics do not order.
@group(0) @binding(0) var<storage, read_write> tags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> dist: array<f32>;
@group(0) @binding(2) var<storage, read> neighbours: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let cell = neighbours[gid.x];
  if (atomicExchange(&tags[cell], 1u) == 0u) {
    dist[cell] = min(dist[cell], dist[gid.x] + 1.0);  // expect: flag-publish
    atomicStore(&tags[cell], 0u);
  }
}
