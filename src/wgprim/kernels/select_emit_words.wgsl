// Stream compaction's ranking and writes, one invocation per 4 consecutive elements
// (joined after select.wgsl): adapters without subgroups of consecutive invocations,
// inputs up to select.SUBGROUP_EMIT_ABOVE elements (faster there), and the single pass
// (compact_chained.wgsl). select_emit_subgroup.wgsl is the other form, same functions.
//
// Invocation t of a tile handles mask words k * WG + t (k < VECS) and the vec4s of values
// they cover; it writes its own kept elements one by one, so a subgroup's store
// instruction covers about half its lanes, spread over a span of the output.

@group(0) @binding(4) var<storage, read> src: array<vec4<T>>;

// The flags of mask word k of this invocation in tile `tile` (the load clamped in range).
fn load_flags_word(tile: u32, t: u32, k: u32) -> u32 {
  let w = tile * (TILE / 4u) + k * WG + t;
  return clip_flags(w, flag_bits(mask[min(w, (params.n - 1u) / 4u)]));
}

// Written out per component (no loop over a vector index): drivers keep the vectors in
// registers instead of indexable local memory.
fn load_flags(tile: u32, t: u32) -> vec4<u32> {
  return vec4<u32>(load_flags_word(tile, t, 0u), load_flags_word(tile, t, 1u),
                   load_flags_word(tile, t, 2u), load_flags_word(tile, t, 3u));
}

struct Ranks {
  flags: vec4<u32>,   // flag bits of the VECS words
  before: vec4<u32>,  // set flags in the tile before each word
  total: u32,         // set flags in the tile
}

// Rank every flag of the tile: an exclusive scan (in invocation order) of the per-word
// counts, for the VECS word columns at once; column k follows all of column k - 1.
fn tile_ranks(inv: Invocation, tile: u32) -> Ranks {
  let f = load_flags(tile, inv.index);
  let scan = block_exclusive_scan_total(inv, countOneBits(f));
  let col = scan.total;
  let before_col = vec4<u32>(0u, col.x, col.x + col.y, col.x + col.y + col.z);
  return Ranks(f, scan.before + before_col, col.x + col.y + col.z + col.w);
}

// Write the kept elements of one vec4 (flag bits `bits`) to dst from position pos on.
fn emit4(x: vec4<T>, bits: u32, start: u32) {
  var pos = start;
  if ((bits & 0x1u) != 0u) { dst[pos] = x.x; pos += 1u; }
  if ((bits & 0x100u) != 0u) { dst[pos] = x.y; pos += 1u; }
  if ((bits & 0x10000u) != 0u) { dst[pos] = x.z; pos += 1u; }
  if ((bits & 0x1000000u) != 0u) { dst[pos] = x.w; }
}

fn emit_values_word(tile: u32, t: u32, k: u32, bits: u32, pos: u32) {
  if (bits != 0u) {
    emit4(src[tile * (TILE / 4u) + k * WG + t], bits, pos);
  }
}

fn emit_indices_word(tile: u32, t: u32, k: u32, bits: u32, pos: u32) {
  if (bits != 0u) {
    let first = params.index_base + (tile * (TILE / 4u) + k * WG + t) * 4u;
    emit4(vec4<T>(T(first), T(first + 1u), T(first + 2u), T(first + 3u)), bits, pos);
  }
}

fn write_values(inv: Invocation, tile: u32, r: Ranks, base: u32) {
  let t = inv.index;
  let pos = base + r.before;
  emit_values_word(tile, t, 0u, r.flags.x, pos.x);
  emit_values_word(tile, t, 1u, r.flags.y, pos.y);
  emit_values_word(tile, t, 2u, r.flags.z, pos.z);
  emit_values_word(tile, t, 3u, r.flags.w, pos.w);
  end_tile();
}

fn write_indices(inv: Invocation, tile: u32, r: Ranks, base: u32) {
  let t = inv.index;
  let pos = base + r.before;
  emit_indices_word(tile, t, 0u, r.flags.x, pos.x);
  emit_indices_word(tile, t, 1u, r.flags.y, pos.y);
  emit_indices_word(tile, t, 2u, r.flags.z, pos.z);
  emit_indices_word(tile, t, 3u, r.flags.w, pos.w);
  end_tile();
}

// The tile's values, every load clamped into range (past the end nothing is written).
struct TileValues {
  x0: vec4<T>,
  x1: vec4<T>,
  x2: vec4<T>,
  x3: vec4<T>,
}

fn load_tile_values(inv: Invocation, tile: u32) -> TileValues {
  let first = tile * (TILE / 4u) + inv.index;
  let last_vec = (params.n - 1u) / 4u;
  return TileValues(src[min(first, last_vec)], src[min(first + WG, last_vec)],
                    src[min(first + 2u * WG, last_vec)], src[min(first + 3u * WG, last_vec)]);
}

// The kept values of `x` (loaded by load_tile_values) from output position `base` on.
fn emit_values(inv: Invocation, r: Ranks, x: TileValues, base: u32) {
  let pos = base + r.before;
  if (r.flags.x != 0u) { emit4(x.x0, r.flags.x, pos.x); }
  if (r.flags.y != 0u) { emit4(x.x1, r.flags.y, pos.y); }
  if (r.flags.z != 0u) { emit4(x.x2, r.flags.z, pos.z); }
  if (r.flags.w != 0u) { emit4(x.x3, r.flags.w, pos.w); }
  end_tile();
}
