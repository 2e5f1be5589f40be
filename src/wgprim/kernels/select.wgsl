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
// The preamble defines `alias T` (the element type; u32 for indices).

override WG: u32 = 256u;
const VECS: u32 = 4u;               // mask words (4 elements each) per invocation
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

var<workgroup> lanes: array<vec4<u32>, WG>;
var<workgroup> wg_count: atomic<u32>;
var<workgroup> wg_base: u32;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// 0x01 in each byte whose mask byte is non-zero (a bool written by anything but numpy
// may hold any non-zero value). No carry crosses bytes: 0x7f + 0x7f < 0x100.
fn flag_bits(w: u32) -> u32 {
  return ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u) >> 7u;
}

// The flags of this invocation's VECS words; bytes past n read as 0.
fn load_flags(group: u32, t: u32) -> vec4<u32> {
  let n = params.n;
  var f = vec4<u32>(0u);
  for (var k = 0u; k < VECS; k++) {
    let w = group * (TILE / 4u) + k * WG + t;
    let first = w * 4u;
    if (first < n) {
      var bits = flag_bits(mask[w]);
      let left = n - first;
      if (left < 4u) {
        bits &= (1u << (8u * left)) - 1u;
      }
      f[k] = bits;
    }
  }
  return f;
}

struct Ranks {
  flags: vec4<u32>,   // flag bits of the VECS words
  before: vec4<u32>,  // set flags in the tile before each word
  total: u32,         // set flags in the tile
}

// Rank every flag of the tile: an exclusive scan (in invocation order) of the per-word
// counts, for the VECS word columns at once; column k follows all of column k - 1.
fn tile_ranks(group: u32, t: u32) -> Ranks {
  let f = load_flags(group, t);
  let c = countOneBits(f);
  lanes[t] = c;
  workgroupBarrier();
  for (var d = 1u; d < WG; d = d << 1u) {
    var x = lanes[t];
    if (t >= d) {
      x += lanes[t - d];
    }
    workgroupBarrier();
    lanes[t] = x;
    workgroupBarrier();
  }
  let col = lanes[WG - 1u];
  let before_col = vec4<u32>(0u, col.x, col.x + col.y, col.x + col.y + col.z);
  return Ranks(f, lanes[t] - c + before_col, col.x + col.y + col.z + col.w);
}

fn emit_values(group: u32, t: u32, r: Ranks, base: u32) {
  for (var k = 0u; k < VECS; k++) {
    let bits = r.flags[k];
    if (bits != 0u) {
      let x = src[group * (TILE / 4u) + k * WG + t];
      var pos = base + r.before[k];
      for (var j = 0u; j < 4u; j++) {
        if (((bits >> (8u * j)) & 1u) != 0u) {
          dst[pos] = x[j];
          pos += 1u;
        }
      }
    }
  }
}

fn emit_indices(group: u32, t: u32, r: Ranks, base: u32) {
  for (var k = 0u; k < VECS; k++) {
    let bits = r.flags[k];
    if (bits != 0u) {
      let first = params.index_base + (group * (TILE / 4u) + k * WG + t) * 4u;
      var pos = base + r.before[k];
      for (var j = 0u; j < 4u; j++) {
        if (((bits >> (8u * j)) & 1u) != 0u) {
          dst[pos] = T(first + j);
          pos += 1u;
        }
      }
    }
  }
}

// Phase 1: set flags per tile.
@compute @workgroup_size(WG)
fn select_count(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  if (t == 0u) {
    atomicStore(&wg_count, 0u);
  }
  workgroupBarrier();
  let c = dot(countOneBits(load_flags(group, t)), vec4<u32>(1u));
  if (c != 0u) {
    atomicAdd(&wg_count, c);
  }
  workgroupBarrier();
  if (t == 0u) {
    tile_counts[group] = atomicLoad(&wg_count);
  }
}

// Phase 3 (ordered): the tile prefixes come from the scan dispatches before this one.
// The last tile also writes the chunk's total, read back after the submit.
@compute @workgroup_size(WG)
fn select_scatter_values(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(group, t);
  let base = tile_prefix[group];
  emit_values(group, t, r, base);
  if (t == 0u && group == params.groups - 1u) {
    total[params.slot] = base + r.total;
  }
}

@compute @workgroup_size(WG)
fn select_scatter_indices(@builtin(workgroup_id) wid: vec3<u32>,
                          @builtin(num_workgroups) nwg: vec3<u32>,
                          @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(group, t);
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
fn select_append_values(@builtin(workgroup_id) wid: vec3<u32>,
                        @builtin(num_workgroups) nwg: vec3<u32>,
                        @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(group, t);
  emit_values(group, t, r, reserve(t, r.total));
}

@compute @workgroup_size(WG)
fn select_append_indices(@builtin(workgroup_id) wid: vec3<u32>,
                         @builtin(num_workgroups) nwg: vec3<u32>,
                         @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let r = tile_ranks(group, t);
  emit_indices(group, t, r, reserve(t, r.total));
}
