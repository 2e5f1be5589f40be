// Waiting on an ordinary (non-atomic) storage value is a spin-wait too.
@group(0) @binding(0) var<storage, read_write> status: array<u32, 4>;

@compute @workgroup_size(1)
fn main() {
  for (; status[0] == 0u; ) { // expect: spin-wait
  }
  status[1] = 1u;
}
