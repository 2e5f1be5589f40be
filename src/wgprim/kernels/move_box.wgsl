// Copies a box of (boxes, rows, columns) elements of WORDS 32-bit words each between two
// layouts given by their strides: dst[first_dst + b*dst_box + r*dst_row + c*dst_column] =
// src[first_src + b*src_box + r*src_row + c*src_column]. ops/axis_moves.py moves an axis
// of an array larger than one storage binding this way, window by window: blocks of whole
// outer slices, or tiles of one slice, each window bound from an aligned offset and
// `first_*` elements in. One invocation per element; reads are coalesced (columns
// neighbour in src), writes are strided.

override WG: u32 = 256u;
override WORDS: u32 = 1u;

struct Params {
  boxes: u32,
  rows: u32,
  columns: u32,
  first_src: u32,
  src_box: u32,
  src_row: u32,
  src_column: u32,
  first_dst: u32,
  dst_box: u32,
  dst_row: u32,
  dst_column: u32,
  groups: u32,   // workgroups with work (the grid may be folded and larger)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(WG)
fn move_box(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  let g = group * WG + t;
  if (group >= params.groups || g >= params.boxes * params.rows * params.columns) {
    return;
  }
  let c = g % params.columns;
  let r = (g / params.columns) % params.rows;
  let b = g / (params.columns * params.rows);
  let i = params.first_src + b * params.src_box + r * params.src_row + c * params.src_column;
  let j = params.first_dst + b * params.dst_box + r * params.dst_row + c * params.dst_column;
  for (var w = 0u; w < WORDS; w++) {
    dst[j * WORDS + w] = src[i * WORDS + w];
  }
}
