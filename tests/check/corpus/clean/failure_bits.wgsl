// A bump allocator with a word of failure bits, as staged renderers write it: each stage
// reads the bits earlier dispatches set and ORs in its own bit. Reading the earlier bits,
// directly or through a `let`, is reading a finished value.
const STAGE_BINNING = 1u;
const STAGE_TILE_ALLOC = 2u;
const STAGE_COARSE = 4u;
struct Bump { failed: atomic<u32>, ptcl: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> bump: Bump;
@group(0) @binding(1) var<storage, read_write> ptcl: array<u32>;
@group(0) @binding(2) var<uniform> size: u32;
var<workgroup> failed_shared: u32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  if (lid.x == 0u) {
    failed_shared = atomicLoad(&bump.failed) & (STAGE_BINNING | STAGE_TILE_ALLOC);
  }
  if (workgroupUniformLoad(&failed_shared) != 0u) { return; }
  let earlier = atomicLoad(&bump.failed);
  if ((earlier & STAGE_BINNING) != 0u) { return; }
  let offset = atomicAdd(&bump.ptcl, 4u);
  if (offset + 4u > size) {
    atomicOr(&bump.failed, STAGE_COARSE);
    return;
  }
  ptcl[offset] = lid.x;
}
