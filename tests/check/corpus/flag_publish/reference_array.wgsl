// The reference example: publish with an atomic flag, read in another workgroup.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> ready: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;

fn compute_value(i: u32) -> u32 { return i * 3u; }

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = gid.x;
  if (wid.x % 2u == 0u) {
    data[i] = compute_value(i);                 // ordinary write
    atomicStore(&ready[i], 1u);                  // expect: flag-publish
  } else {
    if (atomicLoad(&ready[i - 64u]) == 1u) {
      let v = data[i - 64u];                     // expect: flag-publish
      out[i] = v;
    }
  }
}
