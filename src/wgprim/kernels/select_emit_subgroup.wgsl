// Stream compaction's ranking and writes where subgroups are runs of consecutive
// invocations (joined after select.wgsl; select_emit_words.wgsl is the other form, with
// the same functions). Every store instruction of a subgroup writes one unbroken run of
// the output.
//
// Subgroup g (S lanes) owns a row of 4 * S consecutive elements in each of the tile's 4
// columns (column k: elements [k * 4 * WG, (k + 1) * 4 * WG) of the tile; the row starts
// at g * 4 * S), and lane l holds elements j * S + l of the row (j < 4): element j of the
// lanes is one run of S elements, so its kept elements, ranked by one ballot, are one run
// of the output. (Lanes holding 4 consecutive elements, as select_emit_words.wgsl does,
// write every run as 4 interleaved store instructions, each with about half its lanes.)
//
// Ballots come right after the loads, before the block scan or any branch: Vulkan without
// maximal reconvergence does not promise that invocations which took different branches
// run the next subgroup operation together. The rest of the ranking is arithmetic on them.

@group(0) @binding(4) var<storage, read> src: array<T>;

// Chunk index of element j of this invocation's row of column k in tile `tile`.
fn element_index(inv: Invocation, tile: u32, k: u32, j: u32) -> u32 {
  let s = inv.sg_size;
  return tile * TILE + k * (4u * WG) + (inv.index / s) * (4u * s) + j * s + inv.sg_lane;
}

// 1 if element e is selected (a non-zero mask byte), 0 if not or past the end.
fn element_flag(e: u32) -> u32 {
  let word = mask[min(e / 4u, (params.n - 1u) / 4u)];
  let byte = (word >> ((e % 4u) * 8u)) & 0xffu;
  return select(0u, 1u, byte != 0u && e < params.n);
}

// The bits of ballot word `word` (lanes first .. first + 31) of the lanes below `lane`.
fn lanes_below(word: u32, first: u32, lane: u32) -> u32 {
  let k = min(max(lane, first) - first, 32u);
  return countOneBits(word & select((1u << (k & 31u)) - 1u, 0xffffffffu, k == 32u));
}

fn ballot_below(b: vec4<u32>, lane: u32) -> u32 {
  return lanes_below(b.x, 0u, lane) + lanes_below(b.y, 32u, lane) + lanes_below(b.z, 64u, lane) +
         lanes_below(b.w, 96u, lane);
}

fn ballot_count(b: vec4<u32>) -> u32 {
  return countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);
}

// Flags (bits j) of this invocation's 4 elements of column k.
fn column_flags(inv: Invocation, tile: u32, k: u32) -> u32 {
  return element_flag(element_index(inv, tile, k, 0u)) | (element_flag(element_index(inv, tile, k, 1u)) << 1u) |
         (element_flag(element_index(inv, tile, k, 2u)) << 2u) | (element_flag(element_index(inv, tile, k, 3u)) << 3u);
}

// Where this invocation's kept elements of one column go inside its row: element j at
// (kept elements j' < j of the row) + (kept elements j of lanes below), as two 16-bit
// halves per word (j = 0, 1 in .x; 2, 3 in .y), and in .z how many kept elements of the
// row are held by lanes below this one (all j).
fn row_positions(inv: Invocation, flags: u32) -> vec3<u32> {
  let b0 = subgroupBallot((flags & 1u) != 0u);
  let b1 = subgroupBallot((flags & 2u) != 0u);
  let b2 = subgroupBallot((flags & 4u) != 0u);
  let b3 = subgroupBallot((flags & 8u) != 0u);
  let lane = inv.sg_lane;
  let below = vec4<u32>(ballot_below(b0, lane), ballot_below(b1, lane), ballot_below(b2, lane), ballot_below(b3, lane));
  let c0 = ballot_count(b0);
  let c01 = c0 + ballot_count(b1);
  let c012 = c01 + ballot_count(b2);
  return vec3<u32>(below.x | ((c0 + below.y) << 16u), (c01 + below.z) | ((c012 + below.w) << 16u),
                   below.x + below.y + below.z + below.w);
}

struct Ranks {
  flags: u32,           // bit 4 * k + j: element j of this invocation's row of column k is kept
  row_base: vec4<u32>,  // kept elements of the tile before this subgroup's row of column k
  in_row01: vec4<u32>,  // per column: positions of elements 0 and 1 in the row (16 bits each)
  in_row23: vec4<u32>,  // per column: elements 2 and 3
  total: u32,           // kept elements of the tile
}

// Rank every flag of the tile: ballots place each kept element inside its row; one block
// scan of the per-invocation counts (column k after all of column k - 1) places the rows.
fn tile_ranks(inv: Invocation, tile: u32) -> Ranks {
  let f = vec4<u32>(column_flags(inv, tile, 0u), column_flags(inv, tile, 1u), column_flags(inv, tile, 2u),
                    column_flags(inv, tile, 3u));
  let p0 = row_positions(inv, f.x);
  let p1 = row_positions(inv, f.y);
  let p2 = row_positions(inv, f.z);
  let p3 = row_positions(inv, f.w);
  let scan = block_exclusive_scan_total(inv, countOneBits(f));
  let col = scan.total;
  let before_col = vec4<u32>(0u, col.x, col.x + col.y, col.x + col.y + col.z);
  // the scan's `before` of this invocation = its row's base + the row's kept elements of
  // the lanes below it
  let row_base = scan.before + before_col - vec4<u32>(p0.z, p1.z, p2.z, p3.z);
  return Ranks(f.x | (f.y << 4u) | (f.z << 8u) | (f.w << 12u), row_base, vec4<u32>(p0.x, p1.x, p2.x, p3.x),
               vec4<u32>(p0.y, p1.y, p2.y, p3.y), col.x + col.y + col.z + col.w);
}

// The tile's values, this invocation's 4 elements of column k in .xk, every load clamped
// into range (past the end nothing is written).
struct TileValues {
  x0: vec4<T>,
  x1: vec4<T>,
  x2: vec4<T>,
  x3: vec4<T>,
}

fn load_column(inv: Invocation, tile: u32, k: u32) -> vec4<T> {
  let last = params.n - 1u;
  return vec4<T>(src[min(element_index(inv, tile, k, 0u), last)], src[min(element_index(inv, tile, k, 1u), last)],
                 src[min(element_index(inv, tile, k, 2u), last)], src[min(element_index(inv, tile, k, 3u), last)]);
}

fn load_tile_values(inv: Invocation, tile: u32) -> TileValues {
  return TileValues(load_column(inv, tile, 0u), load_column(inv, tile, 1u), load_column(inv, tile, 2u),
                    load_column(inv, tile, 3u));
}

// The kept elements of one column (flags: bits j), values x, from `start` (the row's first
// output position) on.
fn emit_column(flags: u32, x: vec4<T>, start: u32, in01: u32, in23: u32) {
  if ((flags & 1u) != 0u) { dst[start + (in01 & 0xffffu)] = x.x; }
  if ((flags & 2u) != 0u) { dst[start + (in01 >> 16u)] = x.y; }
  if ((flags & 4u) != 0u) { dst[start + (in23 & 0xffffu)] = x.z; }
  if ((flags & 8u) != 0u) { dst[start + (in23 >> 16u)] = x.w; }
}

fn emit_values(inv: Invocation, r: Ranks, x: TileValues, base: u32) {
  let start = base + r.row_base;
  emit_column(r.flags & 0xfu, x.x0, start.x, r.in_row01.x, r.in_row23.x);
  emit_column((r.flags >> 4u) & 0xfu, x.x1, start.y, r.in_row01.y, r.in_row23.y);
  emit_column((r.flags >> 8u) & 0xfu, x.x2, start.z, r.in_row01.z, r.in_row23.z);
  emit_column((r.flags >> 12u) & 0xfu, x.x3, start.w, r.in_row01.w, r.in_row23.w);
  end_tile();
}

// The same with the values loaded here, only where a flag is set (the append form, after
// reserving its output range).
fn write_values(inv: Invocation, tile: u32, r: Ranks, base: u32) {
  let start = base + r.row_base;
  write_column(inv, tile, 0u, r.flags & 0xfu, start.x, r.in_row01.x, r.in_row23.x);
  write_column(inv, tile, 1u, (r.flags >> 4u) & 0xfu, start.y, r.in_row01.y, r.in_row23.y);
  write_column(inv, tile, 2u, (r.flags >> 8u) & 0xfu, start.z, r.in_row01.z, r.in_row23.z);
  write_column(inv, tile, 3u, (r.flags >> 12u) & 0xfu, start.w, r.in_row01.w, r.in_row23.w);
  end_tile();
}

fn write_column(inv: Invocation, tile: u32, k: u32, flags: u32, start: u32, in01: u32, in23: u32) {
  if ((flags & 1u) != 0u) { dst[start + (in01 & 0xffffu)] = src[element_index(inv, tile, k, 0u)]; }
  if ((flags & 2u) != 0u) { dst[start + (in01 >> 16u)] = src[element_index(inv, tile, k, 1u)]; }
  if ((flags & 4u) != 0u) { dst[start + (in23 & 0xffffu)] = src[element_index(inv, tile, k, 2u)]; }
  if ((flags & 8u) != 0u) { dst[start + (in23 >> 16u)] = src[element_index(inv, tile, k, 3u)]; }
}

// flatnonzero: the kept elements' indices.
fn write_indices(inv: Invocation, tile: u32, r: Ranks, base: u32) {
  let start = base + r.row_base;
  index_column(inv, tile, 0u, r.flags & 0xfu, start.x, r.in_row01.x, r.in_row23.x);
  index_column(inv, tile, 1u, (r.flags >> 4u) & 0xfu, start.y, r.in_row01.y, r.in_row23.y);
  index_column(inv, tile, 2u, (r.flags >> 8u) & 0xfu, start.z, r.in_row01.z, r.in_row23.z);
  index_column(inv, tile, 3u, (r.flags >> 12u) & 0xfu, start.w, r.in_row01.w, r.in_row23.w);
  end_tile();
}

fn index_column(inv: Invocation, tile: u32, k: u32, flags: u32, start: u32, in01: u32, in23: u32) {
  let first = params.index_base + element_index(inv, tile, k, 0u);
  let s = inv.sg_size;
  emit_column(flags, vec4<T>(T(first), T(first + s), T(first + 2u * s), T(first + 3u * s)), start, in01, in23);
}
