// Scan: reduce tiles -> scan the tile totals -> scan each tile again and add its prefix.
//
// Three dispatches per level (ops/scan.py records them; the tile totals are scanned by
// the same steps, recursively, when there are more than one tile of them). No workgroup
// reads what another writes in the same dispatch: tile totals written by scan_reduce are
// read by the next dispatches only. The preamble (ops/operators.py) defines T,
// identity() and combine(); combine must be associative, not necessarily commutative:
// every combination below keeps the order of the elements.

override WG: u32 = 256u;
override ITEMS: u32 = 16u;                 // consecutive elements per invocation
override TILE: u32 = WG * ITEMS;           // elements per workgroup
override PADDED: u32 = TILE + TILE / 32u;  // one spare slot every 32 avoids bank conflicts

struct Params {
  n: u32,           // elements in this chunk
  groups: u32,      // workgroups with work (= tiles in this chunk)
  tile_offset: u32, // index of this chunk's first tile among all tiles
  exclusive: u32,   // 1: exclusive scan (downsweep)
  has_prefix: u32,  // 1: add tile_prefix[tile] (0 for a single-tile scan)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> tile_totals: array<T>;
@group(0) @binding(3) var<storage, read> tile_prefix: array<T>;
@group(0) @binding(4) var<storage, read_write> dst: array<T>;

var<workgroup> tile_data: array<T, PADDED>;
var<workgroup> lanes: array<T, WG>;

fn slot(i: u32) -> u32 {
  return i + (i >> 5u);
}

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Coalesced load of one tile into workgroup memory; past the end: the identity.
fn load_tile(base: u32, t: u32) {
  let n = params.n;
  for (var k = 0u; k < ITEMS; k++) {
    let i = k * WG + t;
    var v = identity();
    if (base + i < n) {
      v = src[base + i];
    }
    tile_data[slot(i)] = v;
  }
  workgroupBarrier();
}

// The in-order total of this invocation's ITEMS consecutive elements.
fn lane_total(t: u32) -> T {
  var acc = identity();
  for (var k = 0u; k < ITEMS; k++) {
    acc = combine(acc, tile_data[slot(t * ITEMS + k)]);
  }
  return acc;
}

// Exclusive scan of one value per invocation, in invocation order (Kogge-Stone).
fn lanes_exclusive_scan(t: u32, v: T) -> T {
  lanes[t] = v;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = lanes[t];
    if (t >= d) {
      x = combine(lanes[t - d], x);
    }
    workgroupBarrier();
    lanes[t] = x;
    workgroupBarrier();
  }
  var prefix = identity();
  if (t > 0u) {
    prefix = lanes[t - 1u];
  }
  return prefix;
}

// Dispatch 1: the total of each tile.
@compute @workgroup_size(WG)
fn scan_reduce(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  load_tile(group * TILE, t);
  let mine = lane_total(t);
  let before = lanes_exclusive_scan(t, mine);
  if (t == WG - 1u) {
    tile_totals[params.tile_offset + group] = combine(before, mine);
  }
}

// Dispatch 3 (or the only one for a single tile): scan each tile, starting from its
// tile's exclusive prefix (computed by the previous dispatches).
@compute @workgroup_size(WG)
fn scan_downsweep(@builtin(workgroup_id) wid: vec3<u32>,
                  @builtin(num_workgroups) nwg: vec3<u32>,
                  @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let base = group * TILE;
  load_tile(base, t);
  var run = lanes_exclusive_scan(t, lane_total(t));
  if (params.has_prefix == 1u) {
    run = combine(tile_prefix[params.tile_offset + group], run);
  }
  let exclusive = params.exclusive == 1u;
  for (var k = 0u; k < ITEMS; k++) {
    let s = slot(t * ITEMS + k);
    let inclusive = combine(run, tile_data[s]);
    tile_data[s] = select(inclusive, run, exclusive);
    run = inclusive;
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    let i = k * WG + t;
    if (base + i < params.n) {
      dst[base + i] = tile_data[slot(i)];
    }
  }
}
