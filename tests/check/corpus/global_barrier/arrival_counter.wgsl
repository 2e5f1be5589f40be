// A hand-made grid barrier: count arrivals, wait for everybody.
@group(0) @binding(0) var<storage, read_write> arrived: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
  data[wid.x] = li;
  if (li == 0u) {
    atomicAdd(&arrived, 1u);
    while (atomicLoad(&arrived) < nwg.x) { // expect: global-barrier
    }
  }
  workgroupBarrier();
}
