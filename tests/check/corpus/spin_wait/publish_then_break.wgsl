// look-back that publishes its own state just before break: a write on the exit path is not progress
@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let me = wid.x;
  atomicStore(&flags[me], 1u);
  if (me > 0u) {
    loop {  // expect: spin-wait
      let f = atomicLoad(&flags[me - 1u]);
      if (f == 2u) {
        atomicStore(&flags[me], 2u);
        break;
      }
    }
  } else {
    atomicStore(&flags[me], 2u);
  }
}
