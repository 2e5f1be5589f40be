// Phases picked by a switch on a uniform: phase 0 accumulates a histogram with atomicAdd,
// phase 1 (its own dispatch) reads it back. Not a read of a partial count.
struct Params { phase: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> hist: array<atomic<u32>, 256>;
@group(0) @binding(2) var<storage, read> keys: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  switch (params.phase) {
    case 0u: { atomicAdd(&hist[keys[gid.x] & 255u], 1u); }
    case 1u: { out[lid] = atomicLoad(&hist[lid]); }
    default: {}
  }
}
