// Scan: reduce tiles -> scan the tile totals -> scan each tile again from its prefix.
//
// Three dispatches per level (ops/scan.py records them; the tile totals are scanned by
// the same steps, recursively, when there is more than one tile of them). No workgroup
// reads what another writes in the same dispatch: tile totals written by scan_reduce are
// read by later dispatches only. The preamble (ops/operators.py) defines T, identity()
// and combine(), and the packets (kernels/packet_vec4.wgsl: a Packet is one 16-byte load
// of PACKET elements, 4 of 32 bits or 2 of 64); the block scan (ops/block_scan.py, bound
// to that combine) defines Invocation and block_exclusive_scan().
// combine must be associative, not necessarily commutative: every combination below
// keeps the order of the elements. Each invocation owns VECS * PACKET consecutive
// elements (16, or 8 of 64 bits), read and written as VECS packets, so the tile never goes
// through workgroup memory.

override WG: u32 = 256u;
const VECS: u32 = 4u;  // packets per invocation

struct Params {
  n: u32,           // elements in this chunk
  groups: u32,      // workgroups with work (= tiles in this chunk)
  tile_offset: u32, // index of this chunk's first tile among all tiles
  exclusive: u32,   // 1: exclusive scan (downsweep)
  has_prefix: u32,  // 1: start from tile_prefix[tile] (0 for a single-tile scan)
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<Packet>;
@group(0) @binding(2) var<storage, read_write> tile_totals: array<T>;
@group(0) @binding(3) var<storage, read> tile_prefix: array<T>;
@group(0) @binding(4) var<storage, read_write> dst: array<Packet>;

fn group_index(inv: Invocation) -> u32 {
  return inv.wid.x + inv.wid.y * inv.nwg.x;
}

// Packet number i of the chunk; elements past the end hold the identity.
fn load_vec(i: u32) -> Packet {
  var v = src[i];
  let n = params.n;
  if (i * PACKET + PACKET <= n) {
    return v;
  }
  let e = identity();
  // unroll
  for (var k = 0u; k < PACKET; k++) {
    packet_set(&v, k, select(e, packet_get(v, k), i * PACKET + k < n));
  }
  return v;
}

// The packet's elements combined in order (lift is the identity map in a scan's preamble).
fn total4(v: Packet) -> T {
  return packet_lift(v, 0u);
}

// The packet scanned from `run` (everything before it): its inclusive (or exclusive)
// values, and `run` combined with all of it.
struct PacketScan {
  values: Packet,
  run: T,
}

fn scan_packet(run: T, v: Packet, exclusive: bool) -> PacketScan {
  var out = v;
  var r = run;
  // unroll
  for (var k = 0u; k < PACKET; k++) {
    let next = combine(r, packet_get(v, k));
    packet_set(&out, k, select(next, r, exclusive));
    r = next;
  }
  return PacketScan(out, r);
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

// This invocation's VECS consecutive packets.
fn load_own(first: u32) -> array<Packet, VECS> {
  return array<Packet, VECS>(load_vec(first), load_vec(first + 1u), load_vec(first + 2u), load_vec(first + 3u));
}

// The scanned values of this invocation's elements, from `run` (the combination of
// everything before them).
fn scan_own(first: u32, inv: Invocation, v: ptr<function, array<Packet, VECS>>) -> T {
  let group = group_index(inv);
  let mine = combine(combine(total4((*v)[0]), total4((*v)[1])), combine(total4((*v)[2]), total4((*v)[3])));
  var run = block_exclusive_scan(inv, mine);
  if (params.has_prefix == 1u) {
    run = combine(tile_prefix[params.tile_offset + group], run);
  }
  let exclusive = params.exclusive == 1u;
  // unroll
  for (var k = 0u; k < VECS; k++) {
    let scanned = scan_packet(run, (*v)[k], exclusive);
    (*v)[k] = scanned.values;
    run = scanned.run;
  }
  return run;
}

// Dispatch 3 (or the only one for a single tile): scan each tile, starting from its
// tile's exclusive prefix (computed by the previous dispatches). Each invocation writes
// its own VECS consecutive packets.
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
    // The chunk's last packet may run past n into the buffer's padding (buffers are whole vec4s).
    if ((first + k) * PACKET < params.n) {
      dst[first + k] = v[k];
    }
  }
}
