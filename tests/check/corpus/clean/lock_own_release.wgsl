// A lock bit in each element's word (a Delaunay flip's tetrahedra): an invocation takes the
// lock with a compare-exchange from the word it just loaded, works, and releases it by
// loading the word it holds and storing it back without the bit. That load reads the word
// while this invocation holds it: no other invocation changes it meanwhile (they only try
// the lock and fail), so it is not a partial total.
const LOCKED = 1u;
const ALIVE = 2u;
@group(0) @binding(0) var<storage, read_write> info: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> queue: array<u32>;
@group(0) @binding(2) var<storage, read_write> flipped: array<u32>;

fn try_lock(i: u32) -> bool {
  let cur = atomicLoad(&info[i]);
  if ((cur & ALIVE) == 0u || (cur & LOCKED) != 0u) { return false; }
  return atomicCompareExchangeWeak(&info[i], cur, cur | LOCKED).exchanged;
}

fn unlock(i: u32) {
  let cur = atomicLoad(&info[i]);
  atomicStore(&info[i], cur & ~LOCKED);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = queue[gid.x];
  if (!try_lock(t)) { return; }
  flipped[gid.x] = t;
  unlock(t);
}
