// The twin of clean/phase_selector.wgsl where both branches test the same phase: the write
// and the read run in the same dispatch, and the barrier waits for no other workgroup.
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
  storageBarrier();  // expect: global-barrier
  if (pc.phase == 1u && wid.x == 0u && lid == 0u) {
    var s = 0u;
    for (var i = 0u; i < pc.n; i++) { s += partials[i]; }
    total[0] = s;
  }
}
