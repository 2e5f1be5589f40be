// The counter is read back through a helper that takes a pointer.
@group(0) @binding(0) var<storage, read_write> hits: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> report: array<u32>;

fn current(p: ptr<storage, atomic<u32>, read_write>) -> u32 {
  return atomicLoad(p); // expect: same-dispatch-read
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if ((gid.x & 1u) == 0u) {
    atomicAdd(&hits, 1u);
  }
  report[gid.x] = current(&hits);
}
