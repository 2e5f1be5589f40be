// The flag guards the rest of the function through an early return.
@group(0) @binding(0) var<storage, read_write> box: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> full: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> sink: array<vec4<f32>>;

@compute @workgroup_size(1)
fn produce(@builtin(workgroup_id) wid: vec3<u32>) {
  box[wid.x] = vec4<f32>(1.0);
  atomicStore(&full[wid.x], 1u); // expect: flag-publish
  let other = wid.x ^ 1u;
  if (atomicLoad(&full[other]) == 0u) {
    return;
  }
  sink[wid.x] = box[other]; // expect: flag-publish
}
