// wgpu_sort's scatter names where the partitions start with a helper that returns a
// constant expression: `partitions_base_offset() + wid.x * RADIX + lid` starts at
// 4 * RADIX, past the global histograms that `pass_ * RADIX + lid` reads (pass_ < 4: every
// store of the pass number is kept to 0 or 1). Not a read of a count this dispatch adds to.
struct Info { even_pass: u32 }
@group(0) @binding(0) var<storage, read_write> info: Info;
@group(0) @binding(1) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
const RADIX = 256u;
const KEYVAL = 4u;

fn partitions_base_offset() -> u32 { return KEYVAL * RADIX; }

@compute @workgroup_size(256)
fn scatter_even(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  if (wid.x == 0u && lid == 0u) {
    info.even_pass = (info.even_pass + 1u) % 2u;
  }
  let pass_ = info.even_pass * 2u;
  let global_offset = atomicLoad(&histograms[pass_ * RADIX + lid]);
  let partition_offset = lid + partitions_base_offset();
  let local = atomicAdd(&histograms[partition_offset + wid.x * RADIX], 1u);
  out[wid.x * RADIX + lid] = global_offset + local;
}
