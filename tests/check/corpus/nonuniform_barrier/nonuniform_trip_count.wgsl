@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  for (var i = 0u; i < li; i++) {
    data[li] += i;
    storageBarrier(); // expect: nonuniform-barrier
  }
  var k = 0u;
  loop {
    if (k > li) { break; }
    workgroupBarrier(); // expect: nonuniform-barrier
    k++;
  }
}
