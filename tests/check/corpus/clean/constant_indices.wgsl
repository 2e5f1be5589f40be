// Two counters in one array: this dispatch bumps slot 0 and reads slot 1, which an earlier
// dispatch finished. Different constant indices are different words.
const SLOT_NEXT = 0u;
const SLOT_LIMIT = 1u;
@group(0) @binding(0) var<storage, read_write> bump: array<atomic<u32>, 2>;
@group(0) @binding(1) var<storage, read_write> items: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let limit = atomicLoad(&bump[SLOT_LIMIT]);
  let slot = atomicAdd(&bump[SLOT_NEXT], 1u);
  if (slot < limit) {
    items[slot] = gid.x;
  }
}
