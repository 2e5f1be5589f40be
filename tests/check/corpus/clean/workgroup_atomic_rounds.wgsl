// Invocations of one workgroup take turns through a workgroup atomic, with a barrier every
// round: whoever the loop waits for reaches the same barrier, so nobody spins alone.
var<workgroup> remaining: atomic<u32>;
var<workgroup> work: array<u32, 64>;
var<workgroup> left: u32;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  if (li == 0u) { atomicStore(&remaining, 64u); }
  work[li] = li;
  workgroupBarrier();
  var done = false;
  loop {
    if (!done && work[li] % 2u == 0u) {
      done = true;
      atomicSub(&remaining, 1u);
    }
    work[li] = work[li] + 1u;
    workgroupBarrier();
    if (li == 0u) { left = atomicLoad(&remaining); }
    if (workgroupUniformLoad(&left) == 0u) { break; }
  }
  out[wid.x * 64u + li] = work[li];
}
