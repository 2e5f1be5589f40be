// The reference text's claim, made measurable: a 256-element block scan (inclusive sum of
// each segment of 256 u32) done inside one workgroup with barriers (block_scan: 8 steps,
// one dispatch) against the same 8 Hillis-Steele steps as 8 dispatches (scan_step: one
// step per dispatch, ping-ponging between two buffers). Results are identical.
// block_scan is wgprim's block scan on its barrier path (ops/block_scan.py puts it, bound
// to u32 sums, in the preamble).

const SEGMENT: u32 = 256u;
const WG: u32 = SEGMENT;

struct Params {
  n: u32,      // elements (a multiple of 256)
  groups: u32, // workgroups with work
  stride: u32, // scan_step: this step's distance (1, 2, 4, ..., 128)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn block_scan(inv: Invocation) {
  let group = inv.wid.x + inv.wid.y * inv.nwg.x;
  if (group >= params.groups) {
    return;
  }
  let i = group * SEGMENT + inv.index;
  let x = src[i];
  dst[i] = block_exclusive_scan(inv, x) + x;
}

@compute @workgroup_size(256)
fn scan_step(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= params.groups) {
    return;
  }
  let i = group * SEGMENT + t;
  var x = src[i];
  if (t >= params.stride) {
    x += src[i - params.stride];
  }
  dst[i] = x;
}
