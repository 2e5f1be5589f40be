// A sum in two dispatches: each workgroup writes its partial, then one workgroup adds them.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> partials: array<f32>;
@group(0) @binding(2) var<storage, read_write> total: f32;
var<workgroup> scratch: array<f32, 128>;

@compute @workgroup_size(128)
fn reduce_blocks(@builtin(global_invocation_id) gid: vec3<u32>,
                 @builtin(local_invocation_index) li: u32,
                 @builtin(workgroup_id) wid: vec3<u32>) {
  scratch[li] = select(0.0, input[gid.x], gid.x < arrayLength(&input));
  workgroupBarrier();
  for (var stride = 64u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      scratch[li] += scratch[li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    partials[wid.x] = scratch[0];
  }
}

@compute @workgroup_size(128)
fn reduce_partials(@builtin(local_invocation_index) li: u32) {
  var s = 0.0;
  for (var i = li; i < arrayLength(&partials); i += 128u) {
    s += partials[i];
  }
  scratch[li] = s;
  workgroupBarrier();
  for (var stride = 64u; stride > 0u; stride >>= 1u) {
    if (li < stride) {
      scratch[li] += scratch[li + stride];
    }
    workgroupBarrier();
  }
  if (li == 0u) {
    total = scratch[0];
  }
}
