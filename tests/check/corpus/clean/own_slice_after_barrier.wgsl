// Reads after the barrier that stay in the workgroup's own slice: its own element, and a
// neighbour inside the same 64 (`wid.x * 64u + (lid.x + 1u) % 64u`), written by an
// invocation of the same workgroup before the barrier.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
  data[gid.x] = f32(gid.x) * 2.0;
  storageBarrier();
  out[gid.x] = data[gid.x] + data[wid.x * 64u + (lid.x + 1u) % 64u];
}
