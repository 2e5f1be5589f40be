// Gather: out[i] = src[idx[i]] for elements of 1, 2, 4 or 8 bytes. The building block of
// everything that moves elements by a permutation or a list of positions: sorting 64-bit
// and multi-key data by its order, compaction of elements that are not 4 bytes.
//
// One dispatch per (output window, source window) pair: a window is what one storage
// binding holds. An invocation writes one 32-bit word of the output (4 one-byte, 2
// two-byte or 1 four-byte element) or one 8-byte element; it takes only the elements whose
// index falls in the bound source window (params.src_start, src_count), so that after the
// dispatches of every source window each element has been written once. Words of 1- and
// 2-byte elements are read, changed where the window holds the element, and written back:
// the dispatches of one output window follow each other, and the end of a dispatch is
// what makes one's bytes visible to the next. Indices are taken as valid (callers make
// them); an index outside every window leaves its element unwritten.

override WG: u32 = 256u;

struct Params {
  n: u32,          // output elements in this window
  src_start: u32,  // first source element the source window holds
  src_count: u32,  // source elements it holds
  groups: u32,     // workgroups with work
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> idx: array<u32>;

fn slot(wid: vec3<u32>, nwg: vec3<u32>, t: u32) -> u32 {
  let group = wid.x + wid.y * nwg.x;
  return select(group * WG + t, 0xffffffffu, group >= params.groups);
}

// The index of output element i relative to the source window, or none (0xffffffff).
fn local_index(i: u32) -> u32 {
  let j = idx[i] - params.src_start;  // wraps above src_count when idx < src_start
  return select(0xffffffffu, j, j < params.src_count);
}
