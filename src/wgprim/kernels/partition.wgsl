// The split of partition() / argpartition() (ops/partition.py): every element goes to a
// bucket by its order key against the sorted pivots P_0 <= ... <= P_{q-1} (the keys of
// the k-th elements, found by the radix select of kernels/topk_select.wgsl): bucket 2c
// holds the keys with c pivots below them that equal none, bucket 2c + 1 the keys equal
// to P_c. Written bucket after bucket, the elements are a partition for every k-th: all
// below its key before it, its equals around it, all above after. Inside a bucket the
// input's order is kept (a stable split), so the element at each k-th is the one a stable
// sort puts there.
//
// The shape of one radix-sort pass with 2q + 1 digits, each ending at a dispatch boundary:
//   split_count    each workgroup counts the buckets of its tile: counts[bucket][tile]
//   (exclusive scan of the counts, bucket-major: ops/scan.py) -> where each tile's share
//                  of each bucket starts in the output
//   split_scatter  each workgroup counts its tile again, ranks every element inside its
//                  bucket (block scan of the per-invocation counts) and writes it (its
//                  own bits) and/or its index at prefix + rank
// Invocation t of a tile holds E consecutive elements, so ranks follow the input order.
// Inputs beyond one storage binding are windows of whole tiles (params.tile_base: the
// window's first tile in the counts); outputs beyond one are windows too: a scatter
// dispatch writes the positions its output window holds (out_base, out_count).
//
// The preamble defines the value and key names of kernels/topk_select.wgsl (ops/topk.py:
// Raw, OrderKey, raw_key, key_less, raw_in, PER_VEC), key_of_words(w0, w1) (the key a
// select fixed, from its words), PIVOTS, BUCKETS, BUCKET_VECS (vec4s of bucket counts),
// LOADS (vec4 loads of E elements) and the block scan of vec4<u32> sums (ops/block_scan.py).

override WG: u32 = 256u;
override DESCENDING: bool = false;   // raw_key's direction: partitions are ascending
override WRITE_VALUES: bool = true;
override WRITE_INDICES: bool = false;
const E: u32 = 8u;                   // elements per invocation (LOADS vec4s)

struct Params {
  n: u32,           // elements in this input window
  tiles: u32,       // tiles of every window: the stride of the counts' buckets
  tile_base: u32,   // this window's first tile
  index_base: u32,  // this window's first element
  out_base: u32,    // scatter: the first output position the output window holds
  out_count: u32,   // scatter: how many it holds
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> pivot_words: array<u32>;   // two words per pivot
@group(0) @binding(3) var<storage, read_write> counts: array<u32>;
@group(0) @binding(4) var<storage, read> prefix: array<u32>;
@group(0) @binding(5) var<storage, read_write> out_values: array<Raw>;
@group(0) @binding(6) var<storage, read_write> out_index: array<u32>;

fn group_index(inv: Invocation) -> u32 {
  return inv.wid.x + inv.wid.y * inv.nwg.x;
}

fn tiles_here() -> u32 {
  return (params.n + WG * E - 1u) / (WG * E);
}

var<private> p_keys: array<OrderKey, PIVOTS>;

fn load_pivots() {
  // unroll
  for (var j = 0u; j < PIVOTS; j++) {
    p_keys[j] = key_of_words(pivot_words[2u * j], pivot_words[2u * j + 1u]);
  }
}

fn bucket_of(raw: Raw) -> u32 {
  let k = raw_key(raw);
  var below = 0u;
  var equal = 0u;
  // unroll
  for (var j = 0u; j < PIVOTS; j++) {
    below += select(0u, 1u, key_less(p_keys[j], k));
    equal |= select(0u, 1u, all(p_keys[j] == k));
  }
  return 2u * below + equal;
}

// The one-hot vec4 of bucket b in column group j (buckets 4j .. 4j + 3).
fn hot(b: u32, j: u32) -> vec4<u32> {
  return select(vec4<u32>(0u), vec4<u32>(1u), vec4<u32>(4u * j) + vec4<u32>(0u, 1u, 2u, 3u) == vec4<u32>(b));
}

// The E elements of invocation t of tile g (raw bits; their buckets, BUCKETS past n).
var<private> elems: array<Raw, E>;
var<private> buckets: array<u32, E>;

fn load_elements(g: u32, t: u32) -> array<vec4<u32>, BUCKET_VECS> {
  let first = g * WG * E + t * E;
  let first_vec = first / PER_VEC;
  let last_vec = (params.n - 1u) / PER_VEC;
  var v: array<vec4<u32>, LOADS>;
  // unroll
  for (var l = 0u; l < LOADS; l++) {
    v[l] = src[min(first_vec + l, last_vec)];  // clamped, not guarded: the loads go out together
  }
  var acc: array<vec4<u32>, BUCKET_VECS>;
  // unroll
  for (var e = 0u; e < E; e++) {
    elems[e] = raw_in(v[e / PER_VEC], e % PER_VEC);
    buckets[e] = select(BUCKETS, bucket_of(elems[e]), first + e < params.n);
    for (var j = 0u; j < BUCKET_VECS; j++) {  // one vec4 for one pivot
      acc[j] += hot(buckets[e], j);
    }
  }
  return acc;
}

@compute @workgroup_size(WG)
fn split_count(inv: Invocation) {
  let g = group_index(inv);
  if (g >= tiles_here()) {
    return;
  }
  load_pivots();
  let acc = load_elements(g, inv.index);
  // unroll
  for (var j = 0u; j < BUCKET_VECS; j++) {
    let total = block_exclusive_scan_total(inv, acc[j]).total;
    workgroupBarrier();
    if (inv.index < 4u && 4u * j + inv.index < BUCKETS) {
      counts[(4u * j + inv.index) * params.tiles + params.tile_base + g] = total[inv.index];
    }
  }
}

@compute @workgroup_size(WG)
fn split_scatter(inv: Invocation) {
  let g = group_index(inv);
  if (g >= tiles_here()) {
    return;
  }
  load_pivots();
  let acc = load_elements(g, inv.index);
  var start: array<vec4<u32>, BUCKET_VECS>;  // per bucket: where this invocation's first goes
  // unroll
  for (var j = 0u; j < BUCKET_VECS; j++) {
    let before = block_exclusive_scan_total(inv, acc[j]).before;
    workgroupBarrier();
    var base = vec4<u32>(0u);
    for (var c = 0u; c < 4u; c++) {
      if (4u * j + c < BUCKETS) {
        base[c] = prefix[(4u * j + c) * params.tiles + params.tile_base + g];
      }
    }
    start[j] = base + before;
  }
  let first = g * WG * E + inv.index * E;
  // unroll
  for (var e = 0u; e < E; e++) {
    let b = buckets[e];
    var pos = 0u;
    for (var j = 0u; j < BUCKET_VECS; j++) {
      let h = hot(b, j);
      pos += dot(h, start[j]);
      start[j] += h;
    }
    let o = pos - params.out_base;  // wraps above out_count below the window
    if (b < BUCKETS && o < params.out_count) {
      if (WRITE_VALUES) {
        out_values[o] = elems[e];
      }
      if (WRITE_INDICES) {
        out_index[o] = params.index_base + first + e;
      }
    }
  }
}

