// Checks that subgroups are runs of consecutive invocations (lane = index % size), which
// the subgroup scan relies on. WGSL does not promise it; the host falls back to the
// barrier scan when any invocation reports otherwise.

@group(0) @binding(0) var<storage, read_write> consecutive: array<u32>;

@compute @workgroup_size(256)
fn probe(@builtin(local_invocation_index) t: u32,
         @builtin(subgroup_size) sg_size: u32,
         @builtin(subgroup_invocation_id) sg_lane: u32) {
  let left = subgroupShuffleUp(t, 1u);
  let ok = (t % sg_size == sg_lane) && (sg_lane == 0u || left + 1u == t);
  consecutive[t] = select(0u, 1u, ok);
}
