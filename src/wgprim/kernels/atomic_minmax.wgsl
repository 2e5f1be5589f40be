// Global min and max by atomics: one accumulate dispatch, one decode dispatch.
//
// Every value is mapped to its min key and its max key (kernels/order_key.wgsl): u32s whose
// unsigned order is the value's order, NaN winning, one key per bit pattern, so that the
// decoded result is an input's own bits (-0.0 and NaN payloads included; the same value as
// the tree reduction's, whatever the order). Each workgroup reduces its share of the keys
// in registers and workgroup memory, then does one atomicMin and one atomicMax on the two
// global words. Those words are read only by the next dispatch (decode), never inside the
// dispatch that accumulates them.
//
// The preamble (ops/atomic_minmax.py) defines `alias T` and the order keys of
// ops/order_key.py: min_key, max_key, from_min_key, from_max_key.

override WG: u32 = 256u;

struct Params {
  n: u32,       // elements
  groups: u32,  // workgroups with work
  swap: u32,    // decode: 1 writes (max, min) instead of (min, max)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<T>>;
@group(0) @binding(2) var<storage, read_write> keys: array<atomic<u32>>;  // [min key, max key]
@group(0) @binding(3) var<storage, read> keys_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> result: array<T>;

var<workgroup> wg_keys: array<atomic<u32>, 2>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

@compute @workgroup_size(WG)
fn minmax_accumulate(@builtin(workgroup_id) wid: vec3<u32>,
                     @builtin(num_workgroups) nwg: vec3<u32>,
                     @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  if (t == 0u) {
    atomicStore(&wg_keys[0], 0xffffffffu);
    atomicStore(&wg_keys[1], 0u);
  }
  workgroupBarrier();
  let n = params.n;
  let full = n / 4u;
  let nvec = (n + 3u) / 4u;
  let stride = params.groups * WG;
  var lo = 0xffffffffu;
  var hi = 0u;
  var v = group * WG + t;
  for (; v + 3u * stride < full; v += 4u * stride) {  // four loads in flight
    let a = src[v];
    let b = src[v + stride];
    let c = src[v + 2u * stride];
    let d = src[v + 3u * stride];
    for (var k = 0u; k < 4u; k++) {
      lo = min(lo, min(min(min_key(a[k]), min_key(b[k])), min(min_key(c[k]), min_key(d[k]))));
      hi = max(hi, max(max(max_key(a[k]), max_key(b[k])), max(max_key(c[k]), max_key(d[k]))));
    }
  }
  for (; v < nvec; v += stride) {
    let a = src[v];
    for (var k = 0u; k < 4u; k++) {
      if (v * 4u + k < n) {
        lo = min(lo, min_key(a[k]));
        hi = max(hi, max_key(a[k]));
      }
    }
  }
  atomicMin(&wg_keys[0], lo);
  atomicMax(&wg_keys[1], hi);
  workgroupBarrier();
  if (t == 0u) {
    atomicMin(&keys[0], atomicLoad(&wg_keys[0]));
    atomicMax(&keys[1], atomicLoad(&wg_keys[1]));
  }
}

// The next dispatch: the accumulated keys are complete; turn them back into values.
@compute @workgroup_size(1)
fn minmax_decode() {
  let lo = from_min_key(keys_in[0]);
  let hi = from_max_key(keys_in[1]);
  if (params.swap == 1u) {
    result[0] = hi;
    result[1] = lo;
  } else {
    result[0] = lo;
    result[1] = hi;
  }
}
