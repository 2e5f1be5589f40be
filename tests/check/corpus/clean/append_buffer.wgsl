// Stream compaction by reservation: the value atomicAdd returns is this invocation's slot.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(2) var<storage, read_write> kept: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let x = input[gid.x];
  if (x > 0.0) {
    let slot = atomicAdd(&count, 1u);
    if (slot < arrayLength(&kept)) {
      kept[slot] = x;
    }
  }
}
