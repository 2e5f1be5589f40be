// One flat buffer holds several things at constant offsets: the dispatch arguments an
// earlier pass wrote at [0, 4), this pass's bucket counters at [4, 20), and last pass's
// digit totals after the 256 bins this pass counts. The loads never reach a word this
// dispatch adds to, so they are not partial sums.
const ARGS = 0u;
const COUNTERS = ARGS + 4u;
const BINS = 256u;
const TOTALS = COUNTERS + 16u + BINS;

@group(0) @binding(0) var<storage, read_write> ctl: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let groups = atomicLoad(&ctl[ARGS + 1u]);
  if (gid.x >= groups * 64u) {
    return;
  }
  let slot = atomicAdd(&ctl[COUNTERS + gid.x % 16u], 1u);
  let key = keys[gid.x];
  atomicAdd(&ctl[COUNTERS + 16u + (key & (BINS - 1u))], 1u);
  let before = atomicLoad(&ctl[TOTALS + min(key >> 24u, 255u)]);
  out[gid.x] = before + slot;
}
