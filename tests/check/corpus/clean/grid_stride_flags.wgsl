// A grid-stride loop reading flags forward from the invocation's id: it walks over the
// data, not back over predecessor workgroups, and its trip count is the data's size over
// the grid's. Not a look-back.
@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  var set = 0u;
  for (var i = gid.x; i < arrayLength(&flags); i += nwg.x * 64u) {
    set += atomicLoad(&flags[i]) & 1u;
  }
  out[gid.x] = set;
}
