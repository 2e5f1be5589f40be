// A work queue: each workgroup claims items with atomicAdd and updates the claimed item
// in place. The claimed index belongs to the workgroup that got it from the counter, so
// the read-modify-write of that item is not data published through the counter. The
// queue loop ends when the counter runs past the items (it moves the counter itself).
@group(0) @binding(0) var<storage, read_write> next_item: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> items: array<u32>;
@group(0) @binding(2) var<storage, read_write> slots: array<u32>;
@group(0) @binding(3) var<storage, read_write> used: atomic<u32>;
var<workgroup> claimed: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
  loop {
    if (li == 0u) {
      claimed = atomicAdd(&next_item, 1u);
    }
    let item = workgroupUniformLoad(&claimed);
    if (item >= arrayLength(&items) / 64u) {
      break;
    }
    items[item * 64u + li] = items[item * 64u + li] * 2u + 1u;
  }
  let slot = atomicAdd(&used, 1u);
  slots[slot] = gid.x;
  slots[slot] += slots[slot] >> 1u;
}
