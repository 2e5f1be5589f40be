// Barriers under uniform conditions: workgroup id, uniform buffer, read-only storage,
// overrides, and a value made uniform with workgroupUniformLoad.
struct Params { rounds: u32, enabled: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> sizes: array<u32>;
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
override ROUNDS: u32 = 4u;
var<workgroup> work_left: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  if (wid.x == 0u) {
    workgroupBarrier();
  }
  for (var r = 0u; r < params.rounds; r++) {
    workgroupBarrier();
  }
  var i = 0u;
  while (i < sizes[wid.x]) {
    storageBarrier();
    i += 1u;
  }
  for (var r = 0u; r < ROUNDS; r++) {
    if (params.enabled != 0u) { workgroupBarrier(); }
  }
  if (li == 0u) { work_left = data[wid.x]; }
  loop {
    let left = workgroupUniformLoad(&work_left);
    if (left == 0u) { break; }
    if (li == 0u) { work_left = left - 1u; }
  }
  if (wid.x >= nwg.x) { return; }
  workgroupBarrier();
}
