// The flag is read through a pointer passed to a helper.
struct Tile { flag: atomic<u32>, value: u32 }
@group(0) @binding(0) var<storage, read_write> tiles: array<Tile>;

fn is_published(p: ptr<storage, atomic<u32>, read_write>) -> bool {
  return atomicLoad(p) != 0u;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  let k = wid.x + 1u;
  loop { // expect: spin-wait
    if (is_published(&tiles[k].flag)) {
      break;
    }
  }
}
