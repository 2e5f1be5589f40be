// The flag goes through a local variable before it decides the exit.
@group(0) @binding(0) var<storage, read_write> go: array<atomic<u32>, 2>;

@compute @workgroup_size(1)
fn main() {
  var finished = false;
  loop { // expect: spin-wait
    if (atomicLoad(&go[1]) == 1u) {
      finished = true;
    }
    if (finished) { break; }
  }
}
