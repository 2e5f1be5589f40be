// Producer and consumer each in a helper function; the read happens in the callee.
@group(0) @binding(0) var<storage, read_write> partial: array<f32>;
@group(0) @binding(1) var<storage, read_write> flags: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;

fn publish(k: u32, v: f32) {
  partial[k] = v;
  atomicOr(&flags[k], 1u); // expect: flag-publish
}

fn take(k: u32) -> f32 {
  return partial[k]; // expect: flag-publish
}

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  publish(wid.x, f32(wid.x));
  if (wid.x > 0u && atomicLoad(&flags[wid.x - 1u]) == 1u) {
    result[wid.x] = take(wid.x - 1u);
  }
}
