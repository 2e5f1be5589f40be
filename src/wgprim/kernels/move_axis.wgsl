// Move one axis of an array of 32-bit elements (WORDS words each: 2 for 8-byte elements),
// viewed as (outer, length, inner), to the end: (outer, inner, length); `move_axis_back`
// is the inverse. Sorting and top-k along a middle axis are then row operations. One
// invocation per element; reads are coalesced going to the end, writes coming back (the
// other side is strided).

override WG: u32 = 256u;
override WORDS: u32 = 1u;

struct Params {
  outer: u32,
  length: u32,
  inner: u32,
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;

fn linear(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  return (wid.x + wid.y * nwg.x) * WG + t;
}

// Where element i of an (outer, length, inner) array stands in its (outer, inner, length)
// form.
fn with_axis_last(i: u32) -> u32 {
  let c = i % params.inner;
  let r = i / params.inner;
  let l = r % params.length;
  let o = r / params.length;
  return (o * params.inner + c) * params.length + l;
}

@compute @workgroup_size(WG)
fn move_axis_last(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) t: u32) {
  let i = linear(wid, nwg, t);  // index into src (outer, length, inner)
  if (i >= params.n) {
    return;
  }
  let j = with_axis_last(i);
  for (var w = 0u; w < WORDS; w++) {
    dst[j * WORDS + w] = src[i * WORDS + w];
  }
}

@compute @workgroup_size(WG)
fn move_axis_back(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) t: u32) {
  let i = linear(wid, nwg, t);  // index into dst (outer, length, inner)
  if (i >= params.n) {
    return;
  }
  let j = with_axis_last(i);
  for (var w = 0u; w < WORDS; w++) {
    dst[i * WORDS + w] = src[j * WORDS + w];
  }
}
