// A variable set under a non-uniform branch is non-uniform; so is a storage read.
var<workgroup> ticket: u32;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  var leader = false;
  if (li == 0u) { leader = true; }
  if (leader) {
    storageBarrier(); // expect: nonuniform-barrier
  }
  if (data[li] > 4u) {
    let t = workgroupUniformLoad(&ticket); // expect: nonuniform-barrier
    data[li] = t;
  }
}
