// Scan: reduce tiles -> scan the tile totals -> scan each tile again from its prefix.
//
// Three dispatches per level (ops/scan.py records them; the tile totals are scanned by
// the same steps, recursively, when there is more than one tile of them). No workgroup
// reads what another writes in the same dispatch: tile totals written by scan_reduce are
// read by later dispatches only. The preamble (ops/operators.py) defines T, identity()
// and combine(); the block scan (ops/block_scan.py, bound to that combine) defines
// Invocation and block_exclusive_scan().
// combine must be associative, not necessarily commutative: every combination below
// keeps the order of the elements. Each invocation owns 16 consecutive elements, read
// and written as 4 vec4s, so the tile never goes through workgroup memory.

override WG: u32 = 256u;
const VECS: u32 = 4u;  // vec4s per invocation

struct Params {
  n: u32,           // elements in this chunk
  groups: u32,      // workgroups with work (= tiles in this chunk)
  tile_offset: u32, // index of this chunk's first tile among all tiles
  exclusive: u32,   // 1: exclusive scan (downsweep)
  has_prefix: u32,  // 1: start from tile_prefix[tile] (0 for a single-tile scan)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<T>>;
@group(0) @binding(2) var<storage, read_write> tile_totals: array<T>;
@group(0) @binding(3) var<storage, read> tile_prefix: array<T>;
@group(0) @binding(4) var<storage, read_write> dst: array<vec4<T>>;

fn group_index(inv: Invocation) -> u32 {
  return inv.wid.x + inv.wid.y * inv.nwg.x;
}

// vec4 number i of the chunk; lanes past the end hold the identity.
fn load_vec(i: u32) -> vec4<T> {
  let v = src[i];
  let n = params.n;
  if (i * 4u + 4u <= n) {
    return v;
  }
  let e = identity();
  let k = i * 4u;
  return vec4<T>(select(e, v.x, k < n), select(e, v.y, k + 1u < n), select(e, v.z, k + 2u < n), select(e, v.w, k + 3u < n));
}

fn total4(v: vec4<T>) -> T {
  return combine(combine(combine(v.x, v.y), v.z), v.w);
}

// Dispatch 1: the total of each tile.
@compute @workgroup_size(WG)
fn scan_reduce(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  let first = (group * WG + inv.index) * VECS;
  let v0 = load_vec(first);
  let v1 = load_vec(first + 1u);
  let v2 = load_vec(first + 2u);
  let v3 = load_vec(first + 3u);
  let mine = combine(combine(total4(v0), total4(v1)), combine(total4(v2), total4(v3)));
  let before = block_exclusive_scan(inv, mine);
  if (inv.index == WG - 1u) {
    tile_totals[params.tile_offset + group] = combine(before, mine);
  }
}

// This invocation's 16 consecutive elements.
fn load_own(first: u32) -> array<vec4<T>, VECS> {
  return array<vec4<T>, VECS>(load_vec(first), load_vec(first + 1u), load_vec(first + 2u), load_vec(first + 3u));
}

// The scanned values of this invocation's 16 elements, from `run` (the combination of
// everything before them).
fn scan_own(first: u32, inv: Invocation, v: ptr<function, array<vec4<T>, VECS>>) -> T {
  let group = group_index(inv);
  let mine = combine(combine(total4((*v)[0]), total4((*v)[1])), combine(total4((*v)[2]), total4((*v)[3])));
  var run = block_exclusive_scan(inv, mine);
  if (params.has_prefix == 1u) {
    run = combine(tile_prefix[params.tile_offset + group], run);
  }
  let exclusive = params.exclusive == 1u;
  // unroll
  for (var k = 0u; k < VECS; k++) {
    let x = (*v)[k];
    let a = combine(run, x.x);
    let b = combine(a, x.y);
    let c = combine(b, x.z);
    let d = combine(c, x.w);
    (*v)[k] = select(vec4<T>(a, b, c, d), vec4<T>(run, a, b, c), exclusive);
    run = d;
  }
  return run;
}

// Dispatch 3 (or the only one for a single tile): scan each tile, starting from its
// tile's exclusive prefix (computed by the previous dispatches). Each invocation writes
// its own 4 consecutive vec4s.
@compute @workgroup_size(WG)
fn scan_downsweep(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  let first = (group * WG + inv.index) * VECS;
  var v = load_own(first);
  scan_own(first, inv, &v);
  // unroll
  for (var k = 0u; k < VECS; k++) {
    // The chunk's last vec4 may run past n into the buffer's padding (buffers are whole vec4s).
    if ((first + k) * 4u < params.n) {
      dst[first + k] = v[k];
    }
  }
}
