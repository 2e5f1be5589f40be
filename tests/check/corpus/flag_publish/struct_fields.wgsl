// Flag and payload are two fields of one struct: still two separate accesses.
struct Slot { ready: atomic<u32>, value: u32 }
@group(0) @binding(0) var<storage, read_write> slots: array<Slot>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  slots[wid.x].value = wid.x * 7u;
  atomicStore(&slots[wid.x].ready, 1u); // expect: flag-publish
  if (wid.x > 0u) {
    let prev = wid.x - 1u;
    if (atomicLoad(&slots[prev].ready) != 0u) {
      out[wid.x] = slots[prev].value; // expect: flag-publish
    }
  }
}
