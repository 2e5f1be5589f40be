// The twin of clean/lock_own_release.wgsl whose "release" runs without the lock held: the
// load may see the word while another invocation holds it, and stores back a stale value.
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
  let cur = atomicLoad(&info[i]);  // expect: same-dispatch-read
  atomicStore(&info[i], cur & ~LOCKED);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let t = queue[gid.x];
  let mine = try_lock(t);
  flipped[gid.x] = t;
  unlock(t);
}
