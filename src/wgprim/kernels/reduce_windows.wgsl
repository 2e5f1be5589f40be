// The results of a reduction along an axis cut into pieces, one storage binding each
// (ops/axis_windows.py), folded into a running result: acc[c] = op(acc[c], part[c]).
// The preamble (ops/operators.py) defines T, A, R, combine, lift and finish; R is T here
// (every reduction but argmin/argmax, which kernels/argreduce_windows.wgsl folds), and
// lift then finish gives a result back its own bits (min/max go through order keys).

override WG: u32 = 256u;

struct Params {
  count: u32,   // columns
  first: u32,   // 1: the first piece (acc = part)
  groups: u32,  // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> part: array<T>;
@group(0) @binding(2) var<storage, read_write> acc: array<T>;

@compute @workgroup_size(WG)
fn fold_values(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  let c = group * WG + t;
  if (group >= params.groups || c >= params.count) {
    return;
  }
  if (params.first == 1u) {
    acc[c] = part[c];
  } else {
    acc[c] = finish(combine(lift(acc[c], 0u), lift(part[c], 0u)));
  }
}
