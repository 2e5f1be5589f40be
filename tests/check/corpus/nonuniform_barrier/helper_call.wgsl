// The barrier is in a helper; the non-uniform branch is at the call.
var<workgroup> buf: array<u32, 64>;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

fn sync_and_read(i: u32) -> u32 {
  workgroupBarrier();
  return buf[i];
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  buf[li] = li;
  if (li % 2u == 0u) {
    data[li] = sync_and_read(li + 1u); // expect: nonuniform-barrier
  }
}
