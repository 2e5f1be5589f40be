// The shape of a decoupled-fallback scan (Smith, Levien & Owens) as its WGSL port writes it:
// the workgroup loops on a workgroup-memory lock read with workgroupUniformLoad; invocation
// 0 polls the predecessor a bounded number of times, then everyone reduces that tile
// themselves and inserts it with atomicMax. Every way around either unlocks or moves the
// look-back on: no unbounded wait.
const NOT_READY = 0u;
const REDUCTION = 1u;
const INCLUSIVE = 2u;
const MASK = 3u;
const MAX_SPIN = 4u;
const LOCKED = 1u;
const UNLOCKED = 0u;
@group(0) @binding(0) var<storage, read_write> bump: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> tiles: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> input: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
var<workgroup> part: u32;
var<workgroup> lock: u32;
var<workgroup> shared_word: u32;
var<workgroup> partial: array<u32, 128>;

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  if (lid.x == 0u) {
    part = atomicAdd(&bump, 1u);
    lock = LOCKED;
  }
  let id = workgroupUniformLoad(&part);
  let total = input[id * 128u + lid.x];
  if (lid.x == 0u) {
    atomicStore(&tiles[id], (total << 2u) | select(INCLUSIVE, REDUCTION, id != 0u));
  }
  if (id != 0u) {
    var acc = 0u;
    var look = id - 1u;
    var locked = workgroupUniformLoad(&lock);
    while (locked == LOCKED) {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
      if (lid.x == 0u) {
        var spins = 0u;
        for (; spins < MAX_SPIN; ) {
          let word = atomicLoad(&tiles[look]);
          if ((word & MASK) > NOT_READY) {
            acc += word >> 2u;
            spins = 0u;
            if ((word & MASK) == INCLUSIVE) {
              atomicStore(&tiles[id], ((acc + total) << 2u) | INCLUSIVE);
              shared_word = acc;
              lock = UNLOCKED;
              break;
            } else {
              look -= 1u;
            }
          } else {
            spins += 1u;
          }
        }
        if (spins == MAX_SPIN) { shared_word = look; }
      }
      locked = workgroupUniformLoad(&lock);
      if (locked == LOCKED) {
        let fallback = workgroupUniformLoad(&shared_word);
        partial[lid.x] = input[fallback * 128u + lid.x];
        workgroupBarrier();
        if (lid.x == 0u) {
          var sum = 0u;
          for (var k = 0u; k < 128u; k++) { sum += partial[k]; }
          let before = atomicMax(&tiles[fallback], (sum << 2u) | select(INCLUSIVE, REDUCTION, fallback != 0u));
          acc += select(before >> 2u, sum, before == 0u);
          if (fallback == 0u || (before & MASK) == INCLUSIVE) {
            atomicStore(&tiles[id], ((acc + total) << 2u) | INCLUSIVE);
            shared_word = acc;
            lock = UNLOCKED;
          } else {
            look -= 1u;
          }
        }
        locked = workgroupUniformLoad(&lock);
      }
    }
  }
  out[id * 128u + lid.x] = workgroupUniformLoad(&shared_word) + total;
}
