// Runs of equal adjacent values: the pieces of unique() and run_length_encode().
//
// Each entry point is one dispatch with one element (or one mask word) per invocation;
// each reads only what earlier dispatches wrote. Equality is equality of order keys
// (kernels/order_key.wgsl): every NaN equals every NaN (numpy's unique(equal_nan=True)),
// -0.0 equals +0.0, so a run of NaNs (or of zeros of either sign) is one run.
//
// Inputs larger than one storage binding are processed window by window (one dispatch
// each, ops/select.py). A window's first element compares with the element before it,
// which lies outside the window: `neighbour` binds the 256 bytes before the window
// (mark_runs*, its last element) or after it (run_lengths, its first), and
// params.neighbour says whether there is one (0 for the first / last window).
//
// The preamble defines `alias T` (vec2<u32> for 64-bit values) and
// `fn same(a: T, b: T) -> bool`.

override WG: u32 = 256u;

struct Params {
  n: u32,          // elements (or runs, for run_lengths) in this window
  groups: u32,     // workgroups with work
  total: u32,      // run_lengths: elements of the sorted input
  neighbour: u32,  // 1: `neighbour` holds the element before (after) the window
  base: u32,       // scatter_inverse: the first index the inverse window holds
  count: u32,      // scatter_inverse: how many it holds
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> mask_out: array<u32>;   // bool bytes, packed
@group(0) @binding(3) var<storage, read_write> flags_out: array<u32>;  // 0/1 per element
@group(0) @binding(4) var<storage, read> starts: array<u32>;
@group(0) @binding(5) var<storage, read_write> lengths: array<u32>;
@group(0) @binding(6) var<storage, read> perm: array<u32>;
@group(0) @binding(7) var<storage, read> src_before: array<T>;        // mark_runs*: the neighbour
@group(0) @binding(8) var<storage, read> run_ids: array<u32>;
@group(0) @binding(9) var<storage, read_write> inverse: array<u32>;
@group(0) @binding(10) var<storage, read> starts_after: array<u32>;   // run_lengths: the neighbour

fn global_id(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + t;
}

// 1 where element i of the window starts a run (the input's first element, or it
// differs from the element before it).
fn starts_run(i: u32) -> u32 {
  if (i == 0u) {
    if (params.neighbour == 0u) {
      return 1u;
    }
    return select(1u, 0u, same(src[0], src_before[arrayLength(&src_before) - 1u]));
  }
  return select(1u, 0u, same(src[i], src[i - 1u]));
}

// One mask word (4 bool bytes) per invocation; bytes past n stay 0.
@compute @workgroup_size(WG)
fn mark_runs(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
  let w = global_id(wid, nwg, t);
  let first = w * 4u;
  if (first >= params.n) {
    return;
  }
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    if (first + j < params.n) {
      word |= starts_run(first + j) << (8u * j);
    }
  }
  mask_out[w] = word;
}

@compute @workgroup_size(WG)
fn mark_runs_u32(@builtin(workgroup_id) wid: vec3<u32>,
                 @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let i = global_id(wid, nwg, t);
  if (i < params.n) {
    flags_out[i] = starts_run(i);
  }
}

// Run j spans [starts[j], starts[j + 1]) (the last one ends at total).
@compute @workgroup_size(WG)
fn run_lengths(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let j = global_id(wid, nwg, t);
  if (j >= params.n) {
    return;
  }
  var end = params.total;
  if (j + 1u < params.n) {
    end = starts[j + 1u];
  } else if (params.neighbour == 1u) {
    end = starts_after[0];
  }
  lengths[j] = end - starts[j];
}

// run_ids is the inclusive scan of the run-start flags of the sorted data: element
// perm[i] of the input belongs to unique value run_ids[i] - 1. The bound `inverse`
// window holds entries [base, base + count): one dispatch per window writes those.
@compute @workgroup_size(WG)
fn scatter_inverse(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let i = global_id(wid, nwg, t);
  if (i < params.n) {
    let to = perm[i] - params.base;  // wraps above count below the window
    if (to < params.count) {
      inverse[to] = run_ids[i] - 1u;
    }
  }
}
