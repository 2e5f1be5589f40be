// "Last workgroup finishes the job": an arrival count whose returned value guards reading
// every workgroup's partial. The count is exact, but it does not publish the partials.
@group(0) @binding(0) var<storage, read_write> partials: array<u32>;
@group(0) @binding(1) var<storage, read_write> arrived: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> total: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  if (li == 0u) {
    partials[wid.x] = wid.x;
    let before = atomicAdd(&arrived, 1u); // expect: flag-publish
    if (before == nwg.x - 1u) {
      var sum = 0u;
      for (var i = 0u; i < nwg.x; i++) {
        sum += partials[i]; // expect: flag-publish
      }
      total = sum;
    }
  }
}
