// Bit flags: this dispatch ORs VISITED into the words; the DONE bit was set by an earlier
// dispatch. Reading `atomicLoad(&f) & DONE` reads a bit nobody changes in this dispatch.
const DONE = 1u;
const VISITED = 2u;
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if ((atomicLoad(&state[i ^ 1u]) & DONE) != 0u) {
    out[i] = 1u;
  }
  atomicOr(&state[i], VISITED);
}
