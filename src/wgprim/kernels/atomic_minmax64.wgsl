// Global min and max of 64-bit values (uint64, int64, float64) by 32-bit atomics: two
// accumulate dispatches, each read only after it has ended.
//
// A 64-bit order key (kernels/order_key.wgsl) is a vec2<u32> compared high word first, and
// WGSL has no 64-bit atomics. So the extremes are found a word at a time:
//   minmax64_high  the smallest and largest high word of the keys (key_for_min /
//                  key_for_max: NaN takes the winning key) -> keys[0], keys[1]
//   minmax64_low   (after a copy of those two words into `high`) the smallest low word
//                  among the keys whose high word is the smallest, and the largest among
//                  those whose high word is the largest -> keys[2], keys[3]
// Min key = (keys[0], keys[2]), max key = (keys[1], keys[3]); the host decodes them. Each
// workgroup reduces its share in registers and workgroup memory and does one global
// atomic per word.
//
// The preamble (ops/atomic_minmax.py) defines alias T = vec2<u32> and the order keys of
// ops/order_key.py (key_for_min, key_for_max).

override WG: u32 = 256u;

struct Params {
  n: u32,       // elements
  groups: u32,  // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;  // two values a load
@group(0) @binding(2) var<storage, read_write> keys: array<atomic<u32>>;  // 4 words, above
@group(0) @binding(3) var<storage, read> high: array<u32>;  // minmax64_low: keys[0], keys[1]

var<workgroup> wg_keys: array<atomic<u32>, 2>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The extremes of this invocation's words (of the high pass, or of the low pass) merged
// into the workgroup's, then into keys[slot] and keys[slot + 1].
fn merge(t: u32, lo: u32, hi: u32, slot: u32) {
  atomicMin(&wg_keys[0], lo);
  atomicMax(&wg_keys[1], hi);
  workgroupBarrier();
  if (t == 0u) {
    atomicMin(&keys[slot], atomicLoad(&wg_keys[0]));
    atomicMax(&keys[slot + 1u], atomicLoad(&wg_keys[1]));
  }
}

fn start(t: u32) {
  if (t == 0u) {
    atomicStore(&wg_keys[0], 0xffffffffu);
    atomicStore(&wg_keys[1], 0u);
  }
  workgroupBarrier();
}

@compute @workgroup_size(WG)
fn minmax64_high(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  start(t);
  var lo = 0xffffffffu;
  var hi = 0u;
  let pairs = (params.n + 1u) / 2u;
  for (var v = group * WG + t; v < pairs; v += params.groups * WG) {
    let p = src[v];
    lo = min(lo, key_for_min(p.xy).y);
    hi = max(hi, key_for_max(p.xy).y);
    if (2u * v + 1u < params.n) {
      lo = min(lo, key_for_min(p.zw).y);
      hi = max(hi, key_for_max(p.zw).y);
    }
  }
  merge(t, lo, hi, 0u);
}

@compute @workgroup_size(WG)
fn minmax64_low(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  start(t);
  let min_high = high[0];
  let max_high = high[1];
  var lo = 0xffffffffu;
  var hi = 0u;
  let pairs = (params.n + 1u) / 2u;
  for (var v = group * WG + t; v < pairs; v += params.groups * WG) {
    let p = src[v];
    let second = 2u * v + 1u < params.n;
    let a = key_for_min(p.xy);
    let b = key_for_min(p.zw);
    let c = key_for_max(p.xy);
    let d = key_for_max(p.zw);
    lo = min(lo, select(0xffffffffu, a.x, a.y == min_high));
    lo = min(lo, select(0xffffffffu, b.x, second && b.y == min_high));
    hi = max(hi, select(0u, c.x, c.y == max_high));
    hi = max(hi, select(0u, d.x, second && d.y == max_high));
  }
  merge(t, lo, hi, 2u);
}
