// A condition read from workgroup memory without workgroupUniformLoad is non-uniform.
var<workgroup> should_continue: u32;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  if (li == 0u) { should_continue = data[0]; }
  workgroupBarrier();
  if (should_continue != 0u) {
    workgroupBarrier(); // expect: nonuniform-barrier
  }
}
