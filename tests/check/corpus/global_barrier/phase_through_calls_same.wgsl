// The twin of clean/phase_through_calls.wgsl where the read runs in phase 0 too: the
// barrier then waits for no other workgroup's total.
struct Push { phase: u32, blocks: u32 }
var<push_constant> pc: Push;
@group(0) @binding(0) var<storage, read_write> totals: array<u32>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn store_block_total(block: u32) {
  totals[block] = input[block];
}

fn add_up_totals() -> u32 {
  var s = 0u;
  for (var i = 0u; i < pc.blocks; i++) { s += totals[i]; }
  return s;
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (pc.phase == 0u) {
    if (lid == 0u) { store_block_total(wid.x); }
  }
  if (pc.phase == 0u) {
    workgroupBarrier();  // expect: global-barrier
    if (lid == 0u) { out[wid.x] = add_up_totals(); }
  }
}
