// argmin/argmax along an axis cut into pieces, one storage binding each
// (ops/axis_windows.py): each piece's winner (its index in the piece, from the axis
// reduction) is read back from the piece's window and folded into the running winner
// (value and index along the whole axis). The earlier piece keeps a tie, so the first
// index among equals comes out, the first NaN if any, as numpy's. The preamble
// (ops/operators.py) defines T, A (value key and index), combine, lift and finish.

override WG: u32 = 256u;

struct Params {
  count: u32,   // columns
  first: u32,   // 1: the first piece (the running winner is this piece's)
  start: u32,   // the piece's first position along the axis
  stride: u32,  // elements between two positions of a column in the window
  groups: u32,  // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> window: array<T>;
@group(0) @binding(2) var<storage, read> part_index: array<u32>;
@group(0) @binding(3) var<storage, read_write> acc_value: array<T>;
@group(0) @binding(4) var<storage, read_write> acc_index: array<u32>;

@compute @workgroup_size(WG)
fn fold_args(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  let c = group * WG + t;
  if (group >= params.groups || c >= params.count) {
    return;
  }
  let i = part_index[c];
  let x = window[i * params.stride + c];
  let position = params.start + i;
  if (params.first == 1u) {
    acc_value[c] = x;
    acc_index[c] = position;
    return;
  }
  let best = finish(combine(lift(acc_value[c], acc_index[c]), lift(x, position)));
  if (best == position) {
    acc_value[c] = x;
    acc_index[c] = position;
  }
}
