// A module with a compute entry point (clearing the buffers) and a fragment entry point
// that takes a per-pixel lock before blending: the fragment invocations wait for each
// other, with no guarantee that the one holding the lock runs on.
@group(0) @binding(0) var<storage, read_write> locks: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> colors: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> width: u32;

@compute @workgroup_size(64)
fn clear(@builtin(global_invocation_id) gid: vec3<u32>) {
  atomicStore(&locks[gid.x], 0u);
  colors[gid.x] = vec4<f32>(0.0);
}

@fragment
fn blend(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
  let pixel = u32(pos.y) * width + u32(pos.x);
  loop { // expect: spin-wait
    if (atomicExchange(&locks[pixel], 1u) == 0u) {
      break;
    }
  }
  colors[pixel] = colors[pixel] * 0.5 + vec4<f32>(0.25); // expect: flag-publish
  atomicStore(&locks[pixel], 0u);
  return colors[pixel]; // expect: flag-publish
}
