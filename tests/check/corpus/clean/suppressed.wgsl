// Findings can be silenced with a comment on the line or the line before.
@group(0) @binding(0) var<storage, read_write> gate: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 4>;

@compute @workgroup_size(1)
fn main() {
  // wgprim: allow(spin-wait)
  loop {
    if (atomicLoad(&gate) != 0u) { break; }
  }
  atomicAdd(&hist[0], 1u);
  let h = atomicLoad(&hist[0]);  // wgprim: allow(same-dispatch-read)
  atomicStore(&hist[1], h);
}
