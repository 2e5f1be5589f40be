// Bitonic sorting network; ops/bitonic.py records the dispatches.
//
// The network on m = 2^p keys (the input padded with the largest key) has, for each
// merge size k = 2, 4, ..., m, the compare-exchange stages of stride j = k/2, ..., 1.
// A stage pairs key i with key i ^ j and puts the smaller first when (i & k) == 0, the
// larger first otherwise. Every stage needs the whole previous stage done:
//   - stages whose stride j < LOCAL (the keys one workgroup holds) only pair keys of the
//     same tile, so one workgroup runs them all in workgroup memory with a barrier
//     between stages (bitonic_local: the whole sort up to k = LOCAL in one dispatch, then
//     one dispatch per later k for its strides below LOCAL);
//   - a stage of stride j >= LOCAL pairs keys of different tiles: one dispatch each
//     (bitonic_global), because only a dispatch boundary makes one workgroup's writes
//     visible to another.
// The network sorts elements of the preamble's type `Elem` (ops/bitonic.py): a key's order
// key (radix_keys.wgsl, to_radix), and where equal keys may differ in bits (float32:
// -0.0 and +0.0, NaN payloads) the key's position too, which makes the network stable.
// The first dispatch loads (elem_load), the last one writes the n real keys' own bits
// (elem_bits). The preamble defines WG, LOCAL (= 2 * WG * PAIRS, a power of two) and:
//   alias Elem;
//   fn elem_load(i: u32) -> Elem      input key i as an element
//   fn elem_pad() -> Elem             the padding, after every element
//   fn elem_after(a: Elem, b: Elem) -> bool
//   fn elem_bits(e: Elem) -> u32      the input bits of the key the element stands for

const PAIRS: u32 = LOCAL / (2u * WG);  // compare-exchanges per invocation per stage

const LOAD_INPUT: u32 = 1u;   // read the user's keys from `src` (transform, pad)
const STORE_OUTPUT: u32 = 2u; // write the first n keys to `dst` (transform back)

struct Params {
  n: u32,       // real keys
  m: u32,       // padded length (a power of two)
  groups: u32,  // workgroups with work
  k: u32,       // merge size (bitonic_global; bitonic_local: the first k to run)
  j: u32,       // stride (bitonic_global)
  k_end: u32,   // bitonic_local: the last k to run
  flags: u32,   // LOAD_INPUT | STORE_OUTPUT
  mode: u32,    // key transform mode (radix_keys.wgsl)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> work: array<Elem>;
@group(0) @binding(3) var<storage, read_write> dst: array<u32>;

var<workgroup> tile: array<Elem, LOCAL>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// The lower index of compare-exchange `pair` at stride j: `pair` with a zero bit inserted
// at j's position.
fn lower_of(pair: u32, j: u32) -> u32 {
  return ((pair & ~(j - 1u)) << 1u) | (pair & (j - 1u));
}

// Runs the merges k = params.k .. params.k_end on this workgroup's tile; for each k, only
// the strides below LOCAL (the ones before were global dispatches).
@compute @workgroup_size(WG)
fn bitonic_local(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let base = group * LOCAL;
  let load_input = (params.flags & LOAD_INPUT) != 0u;
  for (var i = t; i < LOCAL; i += WG) {
    var key = elem_pad();  // padding: after every element, never written out
    if (load_input) {
      if (base + i < params.n) {
        key = elem_load(base + i);
      }
    } else {
      key = work[base + i];
    }
    tile[i] = key;
  }
  workgroupBarrier();
  for (var k = params.k; k <= params.k_end; k = k << 1u) {
    for (var j = min(k >> 1u, LOCAL >> 1u); j > 0u; j = j >> 1u) {
      for (var q = 0u; q < PAIRS; q++) {
        let a = lower_of(q * WG + t, j);
        let b = a + j;
        let x = tile[a];
        let y = tile[b];
        let ascending = ((base + a) & k) == 0u;
        if (elem_after(x, y) == ascending) {
          tile[a] = y;
          tile[b] = x;
        }
      }
      workgroupBarrier();
    }
  }
  if ((params.flags & STORE_OUTPUT) != 0u) {
    for (var i = t; i < LOCAL; i += WG) {
      if (base + i < params.n) {
        dst[base + i] = elem_bits(tile[i]);
      }
    }
  } else {
    for (var i = t; i < LOCAL; i += WG) {
      work[base + i] = tile[i];
    }
  }
}

// One stage of stride j >= LOCAL: each invocation does one compare-exchange.
@compute @workgroup_size(WG)
fn bitonic_global(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let a = lower_of(group * WG + t, params.j);
  let b = a + params.j;
  let x = work[a];
  let y = work[b];
  let ascending = (a & params.k) == 0u;
  if (elem_after(x, y) == ascending) {
    work[a] = y;
    work[b] = x;
  }
}
