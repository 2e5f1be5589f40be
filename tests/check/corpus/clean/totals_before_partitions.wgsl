// One flat buffer: the digit totals of four passes at [0, 1024), final since an earlier
// dispatch, then a block of 256 partition words per workgroup from 1024 on. Workgroup 0
// reads this pass's totals; the others add into their own block, which starts past the
// totals whatever workgroup_id is (under 2^24 workgroups nothing wraps): the read never
// meets an add of this dispatch, though only the add's index has a workgroup_id term.
@group(0) @binding(0) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> starts: array<u32>;
@group(0) @binding(2) var<uniform> pass_number: u32;
const RADIX = 256u;
const PASSES = 4u;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let digit_pass = pass_number & (PASSES - 1u);
  if (wid.x == 0u) {
    starts[lid.x] = atomicLoad(&counts[digit_pass * RADIX + lid.x]);
  } else {
    atomicAdd(&counts[PASSES * RADIX + wid.x * RADIX + lid.x], lid.x + 1u);
  }
}
