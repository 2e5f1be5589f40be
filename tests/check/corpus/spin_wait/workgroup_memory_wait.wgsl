// The wait goes through workgroup memory: invocation 0 polls the predecessor's flag into a
// var<workgroup>, and the whole workgroup leaves the loop on workgroupUniformLoad of it.
@group(0) @binding(0) var<storage, read_write> ready: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> seen: u32;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  if (wid.x > 0u) {
    loop { // expect: spin-wait
      if (li == 0u) {
        seen = atomicLoad(&ready[wid.x - 1u]);
      }
      if (workgroupUniformLoad(&seen) != 0u) { break; }
    }
  }
  out[wid.x * 64u + li] = wid.x;
  if (li == 0u) { atomicStore(&ready[wid.x], 1u); }
}
