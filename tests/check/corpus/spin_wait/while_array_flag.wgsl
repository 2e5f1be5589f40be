@group(0) @binding(0) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  let previous = wid.x - 1u;
  if (wid.x > 0u) {
    while (atomicLoad(&flags[previous]) == 0u) { // expect: spin-wait
    }
  }
  out[wid.x * 64u + li] = 1u;
}
