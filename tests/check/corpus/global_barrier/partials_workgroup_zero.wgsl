// Every workgroup writes its partial; workgroup 0 then sums them "after" a storageBarrier.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> result: f32;
var<workgroup> scratch: array<f32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  scratch[li] = input[gid.x];
  workgroupBarrier();
  if (li == 0u) {
    var s = 0.0;
    for (var i = 0u; i < 64u; i++) { s += scratch[i]; }
    partials[wid.x] = s;
  }
  storageBarrier(); // expect: global-barrier
  if (wid.x == 0u && li == 0u) {
    var total = 0.0;
    for (var w = 0u; w < nwg.x; w++) { total += partials[w]; }
    result = total;
  }
}
