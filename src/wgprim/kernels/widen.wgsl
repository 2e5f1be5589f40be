// 32-bit integers to 64-bit ones, as numpy's astype(np.int64) / astype(np.uint64):
// sign-extended from int32 (SIGNED), zero-extended from uint32. One invocation per element;
// 64-bit values are vec2<u32> (low word, high word). ops/widen.py records it.

override WG: u32 = 256u;
override SIGNED: bool = true;

struct Params {
  n: u32,       // elements in this chunk
  groups: u32,  // workgroups with work (the grid may be folded and larger)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec2<u32>>;

@compute @workgroup_size(WG)
fn widen(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) t: u32) {
  let group = wid.x + wid.y * nwg.x;
  let i = group * WG + t;
  if (group >= params.groups || i >= params.n) {
    return;
  }
  let x = src[i];
  let negative = SIGNED && (x >> 31u) == 1u;
  dst[i] = vec2<u32>(x, select(0u, 0xffffffffu, negative));
}
