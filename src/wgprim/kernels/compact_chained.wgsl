// Single-pass stream compaction: count, chained scan of the counts, scatter, in one
// dispatch (after the one that zeroes the tile states). The preamble holds the block scan
// of vec4<u32> (block_scan_*.wgsl); put after select.wgsl (Params, the mask and output
// bindings, count4), select_emit_words.wgsl (the values binding, tile_ranks,
// write_values / write_indices) and chained_lookback.wgsl.
//
// Each workgroup ranks the flags of its tile (one tile per workgroup), publishes the
// tile's count, gets the count of every earlier tile from the look-back (decoupled
// fallback: a predecessor that is not ready is counted from its mask by this workgroup)
// and writes its kept elements from there. The last tile writes the total to
// chunk_carry[carry_out], read after the submit.

alias ChainT = u32;

fn chain_identity() -> u32 {
  return 0u;
}

fn chain_combine(a: u32, b: u32) -> u32 {
  return a + b;
}

// The fallback: the set flags of tile `tile`, counted from the mask as select_count does:
// a tile is WG vec4s of mask (TILE / 16), one per invocation. No loop runs at run time
// (chained_lookback.wgsl's header says why).
fn chain_reduce_tile(inv: Invocation, tile: u32) -> u32 {
  return chain_workgroup_total(inv, count4(tile * WG + inv.index));
}

@compute @workgroup_size(WG)
fn compact_chained_values(inv: Invocation) {
  let tile = group_index(inv);
  if (tile >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, tile);
  if (inv.index == 0u) {
    lb_aggregate = r.total;
  }
  let base = chained_prefix(inv, tile, tile == params.groups - 1u);
  write_values(inv, tile, r, base);
}

@compute @workgroup_size(WG)
fn compact_chained_indices(inv: Invocation) {
  let tile = group_index(inv);
  if (tile >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, tile);
  if (inv.index == 0u) {
    lb_aggregate = r.total;
  }
  let base = chained_prefix(inv, tile, tile == params.groups - 1u);
  write_indices(inv, tile, r, base);
}
