// Stream compaction: x[mask] (values) and flatnonzero(mask) (indices).
//
// Ordered form, three phases, each ending at a dispatch boundary:
//   select_count          each workgroup counts the set flags of its tile
//   (scan of the tile counts: kernels/scan.wgsl, exclusive)
//   select_scatter_*      each workgroup ranks its flags inside the tile and writes
//                         element i to out[tile_prefix + rank]
// Append form, one dispatch: select_append_* ranks the tile the same way, then one
// invocation reserves the tile's output range with ONE atomicAdd on a global counter and
// broadcasts the returned start to the workgroup. Tiles land in whatever order the
// workgroups ran; the counter is read only after the dispatch.
//
// The mask is numpy's bool layout, one byte per element, read as u32 words (4 flags).
// Invocation t of a tile handles words k * WG + t (k < VECS): coalesced loads, and word w
// covers the same elements as vec4 w of the data.
//
// The preamble defines `alias T` (the element type; u32 for indices). One of
// select_ranks_barrier.wgsl / select_ranks_subgroup.wgsl comes before this file and
// defines `Invocation` (the entry points' builtins) and `tile_scan`.

override WG: u32 = 256u;
const VECS: u32 = 4u;                 // mask words (4 elements each) per invocation
override TILE: u32 = WG * VECS * 4u;  // elements per workgroup

struct Params {
  n: u32,           // elements in this chunk
  groups: u32,      // workgroups with work (= tiles)
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

var<workgroup> wg_base: u32;

struct TileScan {
  before: vec4<u32>,   // exclusive prefix of this invocation's counts, per column
  columns: vec4<u32>,  // column totals over the workgroup
}

fn group_index(inv: Invocation) -> u32 {
  return inv.wid.x + inv.wid.y * inv.nwg.x;
}

// 0x01 in each byte whose mask byte is non-zero (a bool written by anything but numpy
// may hold any non-zero value). No carry crosses bytes: 0x7f + 0x7f < 0x100.
fn flag_bits(w: u32) -> u32 {
  return ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u) >> 7u;
}

// The flags of mask word k of this invocation; bytes past n read as 0.
fn load_flags_word(group: u32, t: u32, k: u32) -> u32 {
  let n = params.n;
  let w = group * (TILE / 4u) + k * WG + t;
  let first = w * 4u;
  if (first >= n) {
    return 0u;
  }
  let bits = flag_bits(mask[w]);
  let left = n - first;
  if (left < 4u) {
    return bits & ((1u << (8u * left)) - 1u);
  }
  return bits;
}

// Written out per component (no loop over a vector index): drivers keep the vectors in
// registers instead of indexable local memory.
fn load_flags(group: u32, t: u32) -> vec4<u32> {
  return vec4<u32>(load_flags_word(group, t, 0u), load_flags_word(group, t, 1u),
                   load_flags_word(group, t, 2u), load_flags_word(group, t, 3u));
}

struct Ranks {
  flags: vec4<u32>,   // flag bits of the VECS words
  before: vec4<u32>,  // set flags in the tile before each word
  total: u32,         // set flags in the tile
}

// Rank every flag of the tile: an exclusive scan (in invocation order) of the per-word
// counts, for the VECS word columns at once; column k follows all of column k - 1.
fn tile_ranks(inv: Invocation, group: u32) -> Ranks {
  let f = load_flags(group, inv.index);
  let scan = tile_scan(inv, countOneBits(f));
  let col = scan.columns;
  let before_col = vec4<u32>(0u, col.x, col.x + col.y, col.x + col.y + col.z);
  return Ranks(f, scan.before + before_col, col.x + col.y + col.z + col.w);
}

// Write the kept elements of one vec4 (flag bits `bits`) from position pos on.
fn emit4(x: vec4<T>, bits: u32, start: u32) {
  var pos = start;
  if ((bits & 0x1u) != 0u) { dst[pos] = x.x; pos += 1u; }
  if ((bits & 0x100u) != 0u) { dst[pos] = x.y; pos += 1u; }
  if ((bits & 0x10000u) != 0u) { dst[pos] = x.z; pos += 1u; }
  if ((bits & 0x1000000u) != 0u) { dst[pos] = x.w; }
}

fn emit_values_word(group: u32, t: u32, k: u32, bits: u32, pos: u32) {
  if (bits != 0u) {
    emit4(src[group * (TILE / 4u) + k * WG + t], bits, pos);
  }
}

fn emit_indices_word(group: u32, t: u32, k: u32, bits: u32, pos: u32) {
  if (bits != 0u) {
    let first = params.index_base + (group * (TILE / 4u) + k * WG + t) * 4u;
    emit4(vec4<T>(T(first), T(first + 1u), T(first + 2u), T(first + 3u)), bits, pos);
  }
}

fn emit_values(group: u32, t: u32, r: Ranks, base: u32) {
  let pos = base + r.before;
  emit_values_word(group, t, 0u, r.flags.x, pos.x);
  emit_values_word(group, t, 1u, r.flags.y, pos.y);
  emit_values_word(group, t, 2u, r.flags.z, pos.z);
  emit_values_word(group, t, 3u, r.flags.w, pos.w);
}

fn emit_indices(group: u32, t: u32, r: Ranks, base: u32) {
  let pos = base + r.before;
  emit_indices_word(group, t, 0u, r.flags.x, pos.x);
  emit_indices_word(group, t, 1u, r.flags.y, pos.y);
  emit_indices_word(group, t, 2u, r.flags.z, pos.z);
  emit_indices_word(group, t, 3u, r.flags.w, pos.w);
}

// Phase 1: set flags per tile.
@compute @workgroup_size(WG)
fn select_count(inv: Invocation) {
  let group = group_index(inv);
  let t = inv.index;
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, group);
  if (t == 0u) {
    tile_counts[group] = r.total;
  }
}

// Phase 3 (ordered): the tile prefixes come from the scan dispatches before this one.
// The last tile also writes the chunk's total, read back after the submit.
@compute @workgroup_size(WG)
fn select_scatter_values(inv: Invocation) {
  let group = group_index(inv);
  let t = inv.index;
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, group);
  let base = tile_prefix[group];
  emit_values(group, t, r, base);
  if (t == 0u && group == params.groups - 1u) {
    total[params.slot] = base + r.total;
  }
}

@compute @workgroup_size(WG)
fn select_scatter_indices(inv: Invocation) {
  let group = group_index(inv);
  let t = inv.index;
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, group);
  let base = tile_prefix[group];
  emit_indices(group, t, r, base);
  if (t == 0u && group == params.groups - 1u) {
    total[params.slot] = base + r.total;
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
  let t = inv.index;
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, group);
  emit_values(group, t, r, reserve(t, r.total));
}

@compute @workgroup_size(WG)
fn select_append_indices(inv: Invocation) {
  let group = group_index(inv);
  let t = inv.index;
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(inv, group);
  emit_indices(group, t, r, reserve(t, r.total));
}
