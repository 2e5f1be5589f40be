// Test-and-set locks: atomicOr and atomicMax of a constant write the same value every time
// round, so they are waits for whoever holds the lock, not progress.
@group(0) @binding(0) var<storage, read_write> locks: array<atomic<u32>, 2>;
@group(0) @binding(1) var<storage, read_write> hits: atomic<u32>;

@compute @workgroup_size(1)
fn main() {
  while (atomicOr(&locks[0], 1u) == 1u) {} // expect: spin-wait
  atomicAdd(&hits, 1u);
  atomicAnd(&locks[0], 0u);
  loop { // expect: spin-wait
    if (atomicMax(&locks[1], 1u) == 0u) { break; }
  }
  atomicStore(&locks[1], 0u);
}
