@group(0) @binding(0) var<storage, read_write> done: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
  var polls = 0u;
  loop { // expect: spin-wait
    continuing {
      break if atomicLoad(&done) != 0u;
    }
  }
}
