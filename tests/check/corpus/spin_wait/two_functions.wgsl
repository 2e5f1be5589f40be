// The wait lives in a helper; the kernel only calls it.
@group(0) @binding(0) var<storage, read_write> ready: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;

fn wait_for(k: u32) {
  var seen = 0u;
  loop { // expect: spin-wait
    seen = atomicLoad(&ready[k]);
    if (seen != 0u) { break; }
  }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (li == 0u && wid.x > 0u) {
    wait_for(wid.x - 1u);
  }
  workgroupBarrier();
}
