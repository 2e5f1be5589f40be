// A radix scatter (wgpu_sort's shape): the pass number lives in storage and every store of
// it is kept to 0 or 1 by `% 2u`, so `pass_ * RADIX + lid` stays in the global histograms
// at [0, 4 * RADIX), while the workgroups add into their partitions from PARTITIONS on.
// The read does not take a count this dispatch adds to.
struct Info { keys: u32, even_pass: u32, odd_pass: u32 }
@group(0) @binding(0) var<storage, read_write> info: Info;
@group(0) @binding(1) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
const RADIX = 256u;
const PARTITIONS = 1024u;

@compute @workgroup_size(256)
fn scatter_even(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (wid.x == 0u && lid == 0u) {
    info.odd_pass = (info.odd_pass + 1u) % 2u;
  }
  let pass_ = info.even_pass * 2u;
  let global_offset = atomicLoad(&histograms[pass_ * RADIX + lid]);
  let local = atomicAdd(&histograms[PARTITIONS + wid.x * RADIX + lid], 1u);
  out[wid.x * RADIX + lid] = global_offset + local;
}

@compute @workgroup_size(256)
fn scatter_odd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (wid.x == 0u && lid == 0u) {
    info.even_pass = (info.even_pass + 1u) % 2u;
  }
  let pass_ = info.odd_pass * 2u + 1u;
  let global_offset = atomicLoad(&histograms[pass_ * RADIX + lid]);
  let local = atomicAdd(&histograms[PARTITIONS + wid.x * RADIX + lid], 1u);
  out[wid.x * RADIX + lid] = global_offset + local;
}
