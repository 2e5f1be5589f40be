// Histograms privatized per workgroup in one flat buffer: workgroup w adds into
// [w * 64, w * 64 + 64) and reads that window back after its barrier. The windows of two
// workgroups never meet, so the window is final for the workgroup that reads it. The same
// holds for each invocation's own slots, indexed from global_invocation_id.
@group(0) @binding(0) var<storage, read> keys: array<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> slots: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

const BINS = 64u;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(global_invocation_id) gid: vec3<u32>) {
  let base = wid.x * BINS;
  let key = keys[gid.x];
  atomicAdd(&hist[base + key % BINS], 1u);
  atomicAdd(&slots[gid.x * 2u + (key & 1u)], 1u);
  storageBarrier();
  workgroupBarrier();
  out[gid.x] = atomicLoad(&hist[base + lid.x]) + atomicLoad(&slots[gid.x * 2u + 1u]);
}
