// The 32-bit words of 64-bit order keys, and back (ops/lexsort.py): a sort of 64-bit keys
// is a chain of stable 32-bit sorts, low key word first, and each sort reads one word of
// every key as a plain array of u32.
//
//   key_words        lo[i], hi[i] = the low and high word of key(values[i])
//   from_key_words   values_out[i] = from_key((lo[i], hi[i])): exact where the key is a
//                    bijection (uint64, int64); a float64 key has given up -0.0's sign
//                    and NaN payloads, so float64 sorts gather their values instead
// One invocation per element, no workgroup reads what another writes. Arrays beyond one
// storage binding are bound in windows (one dispatch each, params.n elements).
//
// The preamble: `alias T = vec2<u32>;` and ops/order_key.preamble(dtype) (key, from_key).

override WG: u32 = 256u;

struct Params {
  n: u32,       // elements in this window
  groups: u32,  // workgroups with work
  pad0: u32,
  pad1: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> values: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> lo: array<u32>;
@group(0) @binding(3) var<storage, read_write> hi: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<vec2<u32>>;

fn element(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  let group = wid.x + wid.y * nwg.x;
  return select(group * WG + t, 0xffffffffu, group >= params.groups);
}

@compute @workgroup_size(WG)
fn key_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let i = element(wid, nwg, t);
  if (i >= params.n) {
    return;
  }
  let k = key(values[i]);
  lo[i] = k.x;
  hi[i] = k.y;
}

@compute @workgroup_size(WG)
fn from_key_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) t: u32) {
  let i = element(wid, nwg, t);
  if (i >= params.n) {
    return;
  }
  values_out[i] = from_key(vec2<u32>(lo[i], hi[i]));
}
