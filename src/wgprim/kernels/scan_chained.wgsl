// Single-pass scan: one dispatch (after the one that zeroes the tile states), each tile
// read once and written once. The tile's prefix comes from chained_lookback.wgsl (decoupled
// fallback: never waits for another workgroup). The preamble holds the block scan
// (block_scan_*.wgsl); put after scan.wgsl (Params, load_vec, total4, load_own,
// group_index) and chained_lookback.wgsl.
//
// The preamble defines T, identity(), combine(), the packets (kernels/packet_vec4.wgsl) and
// `const ROWS` (packets per invocation in a tile: the tile holds WG * ROWS * PACKET
// elements). scan_chained keeps scan.wgsl's layout (each invocation owns ROWS = VECS
// consecutive packets); scan_chained_striped.wgsl, on adapters with subgroups, lays a tile
// out so that every load and store is coalesced.

alias ChainT = T;

fn chain_identity() -> T {
  return identity();
}

fn chain_combine(a: T, b: T) -> T {
  return combine(a, b);
}

// The fallback: tile `tile`'s elements combined in order. Whatever the tile's layout in the
// kernel that owns it, its elements are the WG * ROWS packets from packet tile * WG * ROWS
// on: invocation i combines ROWS consecutive ones, chain_workgroup_total the invocations.
// No loop runs at run time (chained_lookback.wgsl's header says why).
fn chain_reduce_tile(inv: Invocation, tile: u32) -> T {
  let first = (tile * WG + inv.index) * ROWS;
  var mine = identity();
  // unroll
  for (var k = 0u; k < ROWS; k++) {
    mine = combine(mine, total4(load_vec(first + k)));
  }
  return chain_workgroup_total(inv, mine);
}

// Each invocation owns VECS consecutive packets (ROWS == VECS): scan.wgsl's downsweep with
// the tile prefix from the look-back instead of an earlier dispatch.
@compute @workgroup_size(WG)
fn scan_chained(inv: Invocation) {
  let tile = group_index(inv);
  if (tile >= params.groups) {
    return;
  }
  let first = (tile * WG + inv.index) * VECS;
  var v = load_own(first);
  let mine = combine(combine(total4(v[0]), total4(v[1])), combine(total4(v[2]), total4(v[3])));
  let before = block_exclusive_scan(inv, mine);
  if (inv.index == WG - 1u) {
    lb_aggregate = combine(before, mine);
  }
  let prefix = chained_prefix(inv, tile, tile == params.groups - 1u);
  var run = combine(prefix, before);
  let exclusive = params.exclusive == 1u;
  for (var k = 0u; k < VECS; k++) {
    let scanned = scan_packet(run, v[k], exclusive);
    if ((first + k) * PACKET < params.n) {
      dst[first + k] = scanned.values;
    }
    run = scanned.run;
  }
}
