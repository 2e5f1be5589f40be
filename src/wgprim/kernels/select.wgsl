// Stream compaction: x[mask] (values) and flatnonzero(mask) (indices).
//
// Ordered form, three phases, each ending at a dispatch boundary:
//   select_count          each workgroup counts the set flags of 16 blocks (TPW tiles each)
//   (scan of the block counts: kernels/scan.wgsl, exclusive)
//   select_scatter_*      each workgroup walks the tiles of its block in order, ranks the
//                         flags inside each tile and writes element i to
//                         out[block_prefix + kept in earlier tiles + rank]
// Append form, one dispatch: select_append_* ranks each tile the same way, then one
// invocation reserves the tile's output range with ONE atomicAdd on a global counter and
// broadcasts the returned start to the workgroup. Tiles land in whatever order the
// workgroups ran; the counter is read only after the dispatch.
//
// The mask is numpy's bool layout, one byte per element, read as u32 words (4 flags).
// Invocation t of a tile handles words k * WG + t (k < VECS): coalesced loads, and word w
// covers the same elements as vec4 w of the data. The count reads it as vec4<u32>.
//
// The preamble defines `alias T` (the element type; u32 for indices) and the block scan
// (ops/block_scan.py) of vec4<u32> sums: `Invocation` (the entry points' builtins) and
// block_exclusive_scan_total. Each invocation writes its own kept elements: staging them
// in workgroup memory for coalesced stores measured slower on an H200, 2x before the
// values' loads were issued first, and still 5% after (2^28 f32, half kept: 0.853 against
// 0.811 ms, 2026-12-01).

override WG: u32 = 256u;
const VECS: u32 = 4u;                 // mask words (4 elements each) per invocation
override TILE: u32 = WG * VECS * 4u;  // elements per tile
override TPW: u32 = 1u;               // tiles per workgroup (a block)

struct Params {
  n: u32,           // elements in this chunk
  groups: u32,      // workgroups with work (= blocks)
  index_base: u32,  // index of this chunk's first element (nonzero)
  slot: u32,        // this chunk's slot in `total` / `counter`
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> mask: array<u32>;
@group(0) @binding(2) var<storage, read_write> tile_counts: array<u32>;
@group(0) @binding(3) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> src: array<vec4<T>>;
@group(0) @binding(5) var<storage, read_write> dst: array<T>;
@group(0) @binding(6) var<storage, read_write> counter: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> total: array<u32>;
@group(0) @binding(8) var<storage, read> mask4: array<vec4<u32>>;  // the mask again, 16 flags a load

var<workgroup> wg_base: u32;

fn group_index(inv: Invocation) -> u32 {
  return inv.wid.x + inv.wid.y * inv.nwg.x;
}

// 0x01 in each byte whose mask byte is non-zero (a bool written by anything but numpy
// may hold any non-zero value). No carry crosses bytes: 0x7f + 0x7f < 0x100.
fn flag_bits(w: u32) -> u32 {
  return ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u) >> 7u;
}

// The flags of mask word w (its bits `bits`); bytes at or past n read as 0. Selects, not
// branches, here and in the loads below: branches around the loads kept an H200 from
// issuing an invocation's loads together.
fn clip_flags(w: u32, bits: u32) -> u32 {
  let first = w * 4u;
  let left = select(0u, params.n - first, first < params.n);  // bytes of the word in range
  return bits & select((1u << (8u * min(left, 3u))) - 1u, 0xffffffffu, left >= 4u);
}

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

// The barrier after a tile lets the next tile reuse the block scan's workgroup memory.
fn end_tile() {
  workgroupBarrier();
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

fn tiles() -> u32 {
  return (params.n + TILE - 1u) / TILE;
}

// The flags of the 4 mask words of vec4 v (16 elements), 0 past the end.
fn count4(v: u32) -> u32 {
  let w = v * 4u;
  let m = mask4[min(v, (params.n - 1u) / 16u)];
  let f = vec4<u32>(clip_flags(w, flag_bits(m.x)), clip_flags(w + 1u, flag_bits(m.y)),
                    clip_flags(w + 2u, flag_bits(m.z)), clip_flags(w + 3u, flag_bits(m.w)));
  // each byte of each word is 0 or 1: the bytes of the sum are 0..4 (no carries), and
  // multiplying by 0x01010101 gathers the four byte sums in the top byte (at most 16)
  return ((f.x + f.y + f.z + f.w) * 0x01010101u) >> 24u;
}

// The set flags of block b (0 past the end).
fn count_block(b: u32, t: u32) -> u32 {
  var c = 0u;
  for (var r = 0u; r < TPW; r++) {
    c += count4(b * TPW * WG + r * WG + t);  // TILE / 16 = WG vec4s of mask per tile
  }
  return c;
}

// Phase 1: the set flags of COUNT_BLOCKS (16) blocks per workgroup, read as vec4<u32> (16
// flags a load): every invocation has 16 loads in flight, and 4 block reductions (4 blocks
// each) serve 16 blocks. (One block per workgroup, one load per invocation: 0.144 ms for
// 2^28 flags on an H200, against 0.118; 2026-12-01.)
const COUNT_BLOCKS: u32 = 16u;

@compute @workgroup_size(WG)
fn select_count(inv: Invocation) {
  let t = inv.index;
  let first = group_index(inv) * COUNT_BLOCKS;
  if (first >= params.groups) {
    return;
  }
  let c0 = vec4<u32>(count_block(first, t), count_block(first + 1u, t), count_block(first + 2u, t),
                     count_block(first + 3u, t));
  let c1 = vec4<u32>(count_block(first + 4u, t), count_block(first + 5u, t), count_block(first + 6u, t),
                     count_block(first + 7u, t));
  let c2 = vec4<u32>(count_block(first + 8u, t), count_block(first + 9u, t), count_block(first + 10u, t),
                     count_block(first + 11u, t));
  let c3 = vec4<u32>(count_block(first + 12u, t), count_block(first + 13u, t), count_block(first + 14u, t),
                     count_block(first + 15u, t));
  // A barrier between reductions: the next one reuses the block scan's workgroup memory.
  let s0 = block_exclusive_scan_total(inv, c0).total;
  workgroupBarrier();
  let s1 = block_exclusive_scan_total(inv, c1).total;
  workgroupBarrier();
  let s2 = block_exclusive_scan_total(inv, c2).total;
  workgroupBarrier();
  let s3 = block_exclusive_scan_total(inv, c3).total;
  if (t < COUNT_BLOCKS && first + t < params.groups) {
    let q = select(select(select(s0, s1, t >= 4u), s2, t >= 8u), s3, t >= 12u);
    tile_counts[first + t] = q[t % 4u];
  }
}

// Phase 3 (ordered): the block prefixes come from the scan dispatches before this one;
// inside the block the tiles follow each other. The last block also writes the chunk's
// total, read back after the submit.
@compute @workgroup_size(WG)
fn select_scatter_values(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  let t = inv.index;
  var base = tile_prefix[group];
  let last = min((group + 1u) * TPW, tiles());
  for (var tile = group * TPW; tile < last; tile++) {
    // The values are loaded before the ranking, so that their loads overlap the mask's and
    // the block scan (loaded after it, only where a flag is set: 0.730 against 0.684 ms at
    // 2^28 on an H200, 2026-12-01). Clamped into range: past the end nothing is written.
    let first = tile * (TILE / 4u) + t;
    let last_vec = (params.n - 1u) / 4u;
    let x0 = src[min(first, last_vec)];
    let x1 = src[min(first + WG, last_vec)];
    let x2 = src[min(first + 2u * WG, last_vec)];
    let x3 = src[min(first + 3u * WG, last_vec)];
    let r = tile_ranks(inv, tile);
    let pos = base + r.before;
    if (r.flags.x != 0u) { emit4(x0, r.flags.x, pos.x); }
    if (r.flags.y != 0u) { emit4(x1, r.flags.y, pos.y); }
    if (r.flags.z != 0u) { emit4(x2, r.flags.z, pos.z); }
    if (r.flags.w != 0u) { emit4(x3, r.flags.w, pos.w); }
    end_tile();
    base += r.total;
  }
  if (t == 0u && group == params.groups - 1u) {
    total[params.slot] = base;
  }
}

@compute @workgroup_size(WG)
fn select_scatter_indices(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  var base = tile_prefix[group];
  let last = min((group + 1u) * TPW, tiles());
  for (var tile = group * TPW; tile < last; tile++) {
    let r = tile_ranks(inv, tile);
    write_indices(inv, tile, r, base);
    base += r.total;
  }
  if (inv.index == 0u && group == params.groups - 1u) {
    total[params.slot] = base;
  }
}

// One atomicAdd per tile reserves its output range; the value it returns is the start.
fn reserve(t: u32, count: u32) -> u32 {
  if (t == 0u) {
    var start = 0u;
    if (count != 0u) {
      start = atomicAdd(&counter[params.slot], count);
    }
    wg_base = start;
  }
  return workgroupUniformLoad(&wg_base);
}

@compute @workgroup_size(WG)
fn select_append_values(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  let last = min((group + 1u) * TPW, tiles());
  for (var tile = group * TPW; tile < last; tile++) {
    let r = tile_ranks(inv, tile);
    write_values(inv, tile, r, reserve(inv.index, r.total));
  }
}

@compute @workgroup_size(WG)
fn select_append_indices(inv: Invocation) {
  let group = group_index(inv);
  if (group >= params.groups) {
    return;
  }
  let last = min((group + 1u) * TPW, tiles());
  for (var tile = group * TPW; tile < last; tile++) {
    let r = tile_ranks(inv, tile);
    write_indices(inv, tile, r, reserve(inv.index, r.total));
  }
}
