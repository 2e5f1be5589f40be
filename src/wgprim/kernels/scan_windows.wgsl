// A scan along an axis cut into pieces, one storage binding each (ops/axis_windows.py):
// each piece is scanned alone, then starts from the carry of the pieces before it
// (dst = carry ⊕ dst, the carry on the left: combine need not commute), and the piece's
// last row gives the next carry. Also the identity rows of include_initial. The preamble
// (ops/operators.py, a scan's) defines T, identity() and combine().

override WG: u32 = 256u;

struct Params {
  count: u32,      // elements of the piece (rows * columns); fill: elements to write
  columns: u32,    // elements of one row (position along the axis) of the piece
  exclusive: u32,  // 1: the piece was scanned exclusive (its last element is not in dst)
  first: u32,      // fill: the first element written, in the aligned binding
  groups: u32,     // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;
@group(0) @binding(3) var<storage, read> carry_in: array<T>;
@group(0) @binding(4) var<storage, read_write> carry_out: array<T>;

fn element(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  let group = wid.x + wid.y * nwg.x;
  if (group >= params.groups) {
    return 0xffffffffu;
  }
  return group * WG + t;
}

// The carry after a piece whose last row, as scanned and carried, is `v` at element g.
fn next_carry(v: T, g: u32) -> T {
  if (params.exclusive == 1u) {
    return combine(v, src[g]);
  }
  return v;
}

// The first piece: its last row gives the carry.
@compute @workgroup_size(WG)
fn take_carry(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
  let c = element(wid, nwg, t);
  if (c < params.columns) {
    let g = params.count - params.columns + c;
    carry_out[c] = next_carry(dst[g], g);
  }
}

// A later piece: every element from the carry; the last row gives the next carry.
@compute @workgroup_size(WG)
fn add_carry(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let g = element(wid, nwg, t);
  if (g >= params.count) {
    return;
  }
  let c = g % params.columns;
  let v = combine(carry_in[c], dst[g]);
  dst[g] = v;
  if (g >= params.count - params.columns) {
    carry_out[c] = next_carry(v, g);
  }
}

// dst[first + i] = identity(): the position-0 rows of include_initial.
@compute @workgroup_size(WG)
fn fill_identity(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let i = element(wid, nwg, t);
  if (i < params.count) {
    dst[params.first + i] = identity();
  }
}
