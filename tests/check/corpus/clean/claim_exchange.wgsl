// Cells claimed with atomicExchange so that each is processed once (an eikonal solver's
// update list): the old value says only whether this invocation got the cell first. The
// word is never set back in the dispatch, so nothing is read on the strength of another
// invocation's write: a claim, not a publication.
@group(0) @binding(0) var<storage, read_write> tags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> dist: array<f32>;
@group(0) @binding(2) var<storage, read> neighbours: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let cell = neighbours[gid.x];
  if (atomicExchange(&tags[cell], 1u) == 0u) {
    dist[cell] = min(dist[cell], dist[gid.x] + 1.0);
  }
}
