// Runs of equal adjacent values: the pieces of unique() and run_length_encode().
//
// Each entry point is one dispatch with one element (or one mask word) per invocation;
// each reads only what earlier dispatches wrote. Equality treats every NaN as equal to
// every other NaN (numpy's unique(equal_nan=True)), so a run of NaNs is one run.
//
// The preamble defines `alias T` and `fn same(a: T, b: T) -> bool`.

override WG: u32 = 256u;

struct Params {
  n: u32,       // elements (or runs, for run_lengths)
  groups: u32,  // workgroups with work
  total: u32,   // run_lengths: elements of the sorted input
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> mask_out: array<u32>;   // bool bytes, packed
@group(0) @binding(3) var<storage, read_write> flags_out: array<u32>;  // 0/1 per element
@group(0) @binding(4) var<storage, read> starts: array<u32>;
@group(0) @binding(5) var<storage, read_write> lengths: array<u32>;
@group(0) @binding(6) var<storage, read> perm: array<u32>;
@group(0) @binding(8) var<storage, read> run_ids: array<u32>;
@group(0) @binding(9) var<storage, read_write> inverse: array<u32>;

fn global_id(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + t;
}

// 1 where element i starts a run (i == 0 or it differs from element i - 1).
fn starts_run(i: u32) -> u32 {
  if (i == 0u) {
    return 1u;
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
  }
  lengths[j] = end - starts[j];
}

// run_ids is the inclusive scan of the run-start flags of the sorted data: element
// perm[i] of the input belongs to unique value run_ids[i] - 1.
@compute @workgroup_size(WG)
fn scatter_inverse(@builtin(workgroup_id) wid: vec3<u32>,
                   @builtin(num_workgroups) nwg: vec3<u32>,
                   @builtin(local_invocation_index) t: u32) {
  let i = global_id(wid, nwg, t);
  if (i < params.n) {
    inverse[perm[i]] = run_ids[i] - 1u;
  }
}
