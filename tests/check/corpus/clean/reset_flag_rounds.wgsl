// Rounds until nothing changes, in one workgroup: the loop clears the storage flag itself
// each round and leaves when no invocation set it again. It writes what it reads: its own
// progress, not a wait for another workgroup.
@group(0) @binding(0) var<storage, read_write> changed: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> labels: array<u32>;
var<workgroup> any_change: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  loop {
    if (li == 0u) { atomicStore(&changed, 0u); }
    storageBarrier();
    workgroupBarrier();
    let mine = labels[li];
    let other = labels[(li + 1u) % 64u];
    if (other < mine) {
      labels[li] = other;
      atomicStore(&changed, 1u);
    }
    storageBarrier();
    workgroupBarrier();
    if (li == 0u) { any_change = atomicLoad(&changed); }
    if (workgroupUniformLoad(&any_change) == 0u) { break; }
  }
}
