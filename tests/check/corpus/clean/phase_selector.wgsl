// One entry point run as separate dispatches, one per phase (the host sets `pc.phase`):
// phase 1 writes each workgroup's partial, phase 3 reads them all. Branches on different
// values of one selector fixed for the dispatch never run in the same dispatch, so the
// read after the barrier does not take partials of this dispatch.
struct Push { phase: u32, n: u32 }
var<push_constant> pc: Push;
@group(0) @binding(0) var<storage, read_write> partials: array<u32>;
@group(0) @binding(1) var<storage, read_write> total: array<u32>;
@group(0) @binding(2) var<storage, read> input: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (pc.phase == 1u && lid == 0u) {
    partials[wid.x] = input[wid.x];
  }
  storageBarrier();
  if (pc.phase == 3u && wid.x == 0u && lid == 0u) {
    var s = 0u;
    for (var i = 0u; i < pc.n; i++) { s += partials[i]; }
    total[0] = s;
  }
}
