// Radix select for top-k: find the k-th smallest order key (kernels/radix_keys.wgsl,
// joined before this file; descending mode for the largest) 8 bits at a time, without
// sorting. Each digit is two dispatches:
//   select_histogram: every workgroup counts the digits of the keys that match the
//     prefix found so far (workgroup atomics, then one global atomicAdd per bin);
//   select_pick (one invocation): walks the 256 bins, fixes the digit, subtracts the
//     keys below it from the rank still wanted.
// After the four key digits, the ties with the k-th key are resolved the same way on
// their indices (the k_rem-th smallest index among them, four more digit passes, skipped
// when every tie is taken), then select_take appends each chosen (key, index) through
// one atomicAdd on a counter. The counter and histograms are read only by later
// dispatches; appends only claim slots, the order is fixed by the sort that follows.

override WG: u32 = 256u;

const PREFIX: u32 = 0u;     // key (then index) prefix found so far
const WANT: u32 = 1u;       // rank still wanted among the keys matching the prefix
const KEY: u32 = 2u;        // the k-th key, once found
const ALL_TIES: u32 = 3u;   // 1: every key equal to KEY is taken
const LAST_INDEX: u32 = 4u; // largest index taken among the ties

struct Params {
  n: u32,
  k: u32,
  mode: u32,    // to_radix mode
  digit: u32,   // 0..3 key digits (from the top), 4..7 index digits
  groups: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> out_keys: array<u32>;
@group(0) @binding(5) var<storage, read_write> out_index: array<u32>;
@group(0) @binding(6) var<storage, read_write> taken: array<atomic<u32>>;  // append counter

var<workgroup> local_hist: array<atomic<u32>, 256>;
var<workgroup> shared_state: array<u32, 4>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

@compute @workgroup_size(WG)
fn select_clear(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i < 8u * 256u) {
    atomicStore(&hist[i], 0u);
  }
  if (i < 8u) {
    atomicStore(&state[i], select(0u, params.k, i == WANT));
  }
  if (i == 0u) {
    atomicStore(&taken[0], 0u);
  }
}

// Count the digit of each key of vec4 number v that matches the prefix (of each index
// whose key is the k-th key, on the index digits).
fn count_digits(raw: vec4<u32>, v: u32, prefix: u32, kth: u32, high: u32, shift: u32, on_index: bool) {
  for (var c = 0u; c < 4u; c++) {
    let i = v * 4u + c;
    if (i < params.n) {
      let key = to_radix(raw[c], params.mode);
      var subject = key;
      var ok = true;
      if (on_index) {
        subject = i;
        ok = key == kth;
      }
      if (ok && ((subject ^ prefix) & high) == 0u) {
        atomicAdd(&local_hist[(subject >> shift) & 255u], 1u);
      }
    }
  }
}

@compute @workgroup_size(WG)
fn select_histogram(@builtin(workgroup_id) wid: vec3<u32>,
                    @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  atomicStore(&local_hist[t], 0u);
  if (t == 0u) {
    shared_state[0] = atomicLoad(&state[PREFIX]);
    shared_state[1] = atomicLoad(&state[KEY]);
    shared_state[2] = atomicLoad(&state[ALL_TIES]);
  }
  workgroupBarrier();
  let prefix = shared_state[0];
  let kth = shared_state[1];
  let on_index = params.digit >= 4u;
  let skip = on_index && shared_state[2] == 1u;
  let d = params.digit & 3u;
  let shift = 24u - 8u * d;
  // Bits above this digit must match the prefix.
  let high = select(0xffffffffu << (shift + 8u) , 0u, d == 0u);
  if (!skip) {
    // Four vec4 loads in flight per iteration (one at a time leaves the memory idle).
    let vecs = (params.n + 3u) / 4u;
    let stride = params.groups * WG;
    var v = group * WG + t;
    for (; v + 3u * stride < vecs; v += 4u * stride) {
      let r0 = keys[v];
      let r1 = keys[v + stride];
      let r2 = keys[v + 2u * stride];
      let r3 = keys[v + 3u * stride];
      count_digits(r0, v, prefix, kth, high, shift, on_index);
      count_digits(r1, v + stride, prefix, kth, high, shift, on_index);
      count_digits(r2, v + 2u * stride, prefix, kth, high, shift, on_index);
      count_digits(r3, v + 3u * stride, prefix, kth, high, shift, on_index);
    }
    for (; v < vecs; v += stride) {
      count_digits(keys[v], v, prefix, kth, high, shift, on_index);
    }
  }
  workgroupBarrier();
  let count = atomicLoad(&local_hist[t]);
  if (count > 0u) {
    atomicAdd(&hist[params.digit * 256u + t], count);
  }
}

@compute @workgroup_size(1)
fn select_pick() {
  let d = params.digit & 3u;
  let shift = 24u - 8u * d;
  if (params.digit >= 4u && atomicLoad(&state[ALL_TIES]) == 1u) {
    return;
  }
  var want = atomicLoad(&state[WANT]);
  var below = 0u;
  var bin = 255u;
  var count = 0u;
  for (var b = 0u; b < 256u; b++) {
    count = atomicLoad(&hist[params.digit * 256u + b]);
    if (below + count >= want) {
      bin = b;
      break;
    }
    below += count;
  }
  want -= below;
  let prefix = atomicLoad(&state[PREFIX]) | (bin << shift);
  atomicStore(&state[WANT], want);
  if (params.digit == 3u) {
    // The k-th key: `want` of the `count` keys equal to it are taken.
    atomicStore(&state[KEY], prefix);
    atomicStore(&state[ALL_TIES], select(0u, 1u, want == count));
    atomicStore(&state[LAST_INDEX], 0xffffffffu);
    atomicStore(&state[PREFIX], 0u);
  } else if (params.digit == 7u) {
    atomicStore(&state[LAST_INDEX], prefix);
  } else {
    atomicStore(&state[PREFIX], prefix);
  }
}

// Append each key of vec4 number v that is chosen: below the k-th key, or equal to it
// at an index up to the last tie taken.
fn take_chosen(raw: vec4<u32>, v: u32, kth: u32, last: u32) {
  for (var c = 0u; c < 4u; c++) {
    let i = v * 4u + c;
    if (i < params.n) {
      let key = to_radix(raw[c], params.mode);
      if (key < kth || (key == kth && i <= last)) {
        let slot = atomicAdd(&taken[0], 1u);
        out_keys[slot] = raw[c];
        out_index[slot] = i;
      }
    }
  }
}

@compute @workgroup_size(WG)
fn select_take(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  if (t == 0u) {
    shared_state[1] = atomicLoad(&state[KEY]);
    shared_state[3] = atomicLoad(&state[LAST_INDEX]);
  }
  workgroupBarrier();
  let kth = shared_state[1];
  let last = shared_state[3];
  let vecs = (params.n + 3u) / 4u;
  let stride = params.groups * WG;
  var v = group * WG + t;
  for (; v + 3u * stride < vecs; v += 4u * stride) {
    let r0 = keys[v];
    let r1 = keys[v + stride];
    let r2 = keys[v + 2u * stride];
    let r3 = keys[v + 3u * stride];
    take_chosen(r0, v, kth, last);
    take_chosen(r1, v + stride, kth, last);
    take_chosen(r2, v + 2u * stride, kth, last);
    take_chosen(r3, v + 3u * stride, kth, last);
  }
  for (; v < vecs; v += stride) {
    take_chosen(keys[v], v, kth, last);
  }
}
