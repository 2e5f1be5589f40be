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
// A tile is VECS columns of 4 * WG elements; the count reads the mask as vec4<u32>.
//
// The preamble defines `alias T` (the element type; u32 for indices) and the block scan
// (ops/block_scan.py) of vec4<u32> sums: `Invocation` (the entry points' builtins) and
// block_exclusive_scan_total. A fragment joined after this file ranks a tile's flags and
// writes its kept elements (tile_ranks, load_tile_values, emit_values, write_values,
// write_indices): select_emit_subgroup.wgsl, where each store instruction of a subgroup
// writes one unbroken run of the output (the scatter of 2^28 f32, half kept, on an H200:
// 0.581 against 0.674 ms), or select_emit_words.wgsl, where each invocation writes the
// kept elements of its own 4 consecutive ones (no subgroups needed). Staging the kept
// elements in workgroup memory for whole-row stores measured slower than the latter (0.853
// against 0.811 ms for the whole compaction, 2026-12-01).

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
// binding 4, `src` (the values), is declared by the fragment (its element type differs)
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

// The barrier after a tile lets the next tile reuse the block scan's workgroup memory.
fn end_tile() {
  workgroupBarrier();
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
    let x = load_tile_values(inv, tile);
    let r = tile_ranks(inv, tile);
    emit_values(inv, r, x, base);
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
