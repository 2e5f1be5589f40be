// The shape of a chained scan with decoupled look-back (Merrill & Garland) as WGSL ports
// write it: one invocation walks back over packed flag+value words; a predecessor that
// only has its own reduction moves the walk on, one that has nothing yet is polled again
// with no budget. That last way around makes no progress: a spin-wait.
const NOT_READY = 0u;
const REDUCTION = 1u;
const INCLUSIVE = 2u;
const MASK = 3u;
@group(0) @binding(0) var<storage, read_write> bump: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> tiles: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
var<workgroup> part: u32;
var<workgroup> carry: u32;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  if (lid.x == 0u) { part = atomicAdd(&bump, 1u); }
  let id = workgroupUniformLoad(&part);
  let total = 7u;
  if (lid.x == 0u) {
    atomicStore(&tiles[id], (total << 2u) | select(INCLUSIVE, REDUCTION, id != 0u));
  }
  if (id != 0u) {
    if (lid.x == 0u) {
      var look = id - 1u;
      var acc = 0u;
      loop { // expect: spin-wait
        let word = atomicLoad(&tiles[look]);
        if ((word & MASK) == INCLUSIVE) {
          acc += word >> 2u;
          atomicStore(&tiles[id], ((acc + total) << 2u) | INCLUSIVE);
          carry = acc;
          break;
        }
        if ((word & MASK) == REDUCTION) {
          acc += word >> 2u;
          look -= 1u;
        }
      }
    }
    workgroupBarrier();
  }
  out[id * 128u + lid.x] = carry;
}
