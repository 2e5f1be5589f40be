// Moves a window of elements between a binding that starts at an aligned offset and a
// packed temporary (ops/axis_windows.py): a window of an array larger than one storage
// binding rarely starts at an offset a binding may take (the device's storage offset
// alignment), so it is bound from the aligned offset below it and `first` elements in.
// The preamble defines T (the element type). One invocation per element.

override WG: u32 = 256u;

struct Params {
  count: u32,   // elements of the window
  first: u32,   // the window's first element in the aligned binding
  groups: u32,  // workgroups with work (the grid may be folded and larger)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> dst: array<T>;

fn element(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  let group = wid.x + wid.y * nwg.x;
  if (group >= params.groups) {
    return 0xffffffffu;
  }
  return group * WG + t;
}

// dst[i] = src[first + i]: the window into a packed temporary.
@compute @workgroup_size(WG)
fn pack(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
  let i = element(wid, nwg, t);
  if (i < params.count) {
    dst[i] = src[params.first + i];
  }
}

// dst[first + i] = src[i]: a packed temporary into its window (nothing else is written).
@compute @workgroup_size(WG)
fn unpack(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) t: u32) {
  let i = element(wid, nwg, t);
  if (i < params.count) {
    dst[params.first + i] = src[i];
  }
}
