// unique() of keys in a narrow range: a presence bitmap instead of a sort.
//
// Bit b of the bitmap stands for order key low + b (kernels/order_key.wgsl; the host
// sends integer keys only: u32, i32, u64, i64). Dispatches,
// each reading only what earlier dispatches wrote:
//   dense_clear          zero the bitmap (and the counters)
//   dense_mark[_local]   set each key's bit (counts: add 1 to its counter) by atomics,
//                        behind a cache in workgroup memory (frequent keys), or, for
//                        narrow ranges, all of it in workgroup memory first (_local)
//   dense_words          counts: the bitmap from the counters; every word's set bits
//   (exclusive scan of the per-word bit counts: ops/scan.py)
//   dense_expand         value low + b at position prefix[word] + set bits before b
//   dense_inverse        each key's position among the unique values, the same way
// The atomics only accumulate: nothing reads a word in the dispatch that sets it.
//
// The preamble (ops/unique_dense.py) defines `alias T` and the order keys of
// ops/order_key.py (key, from_key); how keys are read, four at a time (`Quad`,
// load_quad, quad_bits: their bits; `SrcVec`, the bound vec4), bit_of(x) and value_at(b)
// (the value of bit b). 64-bit keys are vec2<u32> words, two to a vec4: a key's bit is
// the low word of its distance from the smallest key, exact because the range is narrower
// than 2^32.

override WG: u32 = 256u;
override COUNTS: bool = false;          // counters per key (return_counts) as well as bits
override LOCAL_WORDS: u32 = 2048u;      // workgroup-memory words of dense_mark_local
const VECS: u32 = 4u;                   // vec4 loads in flight per invocation (dense_mark)

struct Params {
  n: u32,      // keys in this chunk (dense_mark, dense_inverse); bitmap bits (the others)
  groups: u32, // workgroups with work
  low: u32,    // the smallest order key: bit 0 (its low word for 64-bit keys)
  words: u32,  // bitmap words
  low_hi: u32, // 64-bit keys: the high word of the smallest key
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<SrcVec>;
@group(0) @binding(2) var<storage, read_write> bitmap: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> bits: array<u32>;        // the bitmap, complete
@group(0) @binding(5) var<storage, read> prefix: array<u32>;      // set bits before each word
@group(0) @binding(6) var<storage, read_write> word_bits: array<u32>;  // set bits of each word
@group(0) @binding(7) var<storage, read_write> values_out: array<T>;
@group(0) @binding(8) var<storage, read_write> counts_out: array<u32>;
@group(0) @binding(9) var<storage, read_write> inverse_out: array<u32>;
@group(0) @binding(10) var<storage, read> counts_in: array<u32>;  // the counters, complete
@group(0) @binding(11) var<storage, read_write> total: array<u32>;  // [unique values]

var<workgroup> local_map: array<atomic<u32>, LOCAL_WORDS>;
var<workgroup> word_acc: array<atomic<u32>, WG / 32u>;  // dense_words
// dense_mark's cache: slot c holds word (counter) cache_tag[c], its bits (count) so far
override CACHE_SLOTS: u32 = 1024u;  // a power of two
const EMPTY_TAG: u32 = 0xffffffffu;  // no word or counter index is this large
var<workgroup> cache_tag: array<atomic<u32>, CACHE_SLOTS>;
var<workgroup> cache_acc: array<atomic<u32>, CACHE_SLOTS>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Bitmap word i and, with COUNTS, counter i (the dispatch covers both).
@compute @workgroup_size(WG)
fn dense_clear(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let i = group_index(wid, nwg) * WG + t;
  if (i < params.words) {
    atomicStore(&bitmap[i], 0u);
  }
  if (COUNTS && i < params.n) {
    atomicStore(&counters[i], 0u);
  }
}

// Word (counter) `slot` of the global bitmap (counters) gets `acc`.
fn add_global(slot: u32, acc: u32) {
  if (acc != 0u) {
    if (COUNTS) {
      atomicAdd(&counters[slot], acc);
    } else {
      atomicOr(&bitmap[slot], acc);
    }
  }
}

// The same through the workgroup's cache: cache slot (slot mod CACHE_SLOTS) collects one
// word (counter), the first to claim it; the others go to global memory. A frequent key
// claims its slot early, and its atomics then stay in workgroup memory: without the cache
// an H200 took 15.9 ms for 2^26 keys of which half were one value (same-address atomics
// queue in L2), 0.85 ms when none repeats much (2026-12-01).
fn add_cached(slot: u32, acc: u32) {
  if (acc == 0u) {
    return;
  }
  let c = slot & (CACHE_SLOTS - 1u);
  let claim = atomicCompareExchangeWeak(&cache_tag[c], EMPTY_TAG, slot);
  if (claim.exchanged || claim.old_value == slot) {  // a weak miss goes global: still right
    if (COUNTS) {
      atomicAdd(&cache_acc[c], acc);
    } else {
      atomicOr(&cache_acc[c], acc);
    }
  } else {
    add_global(slot, acc);
  }
}

// Set the bits of the (up to 4) keys of one quad (COUNTS: add to their counters; the
// bitmap comes from the counters later). Adjacent keys sharing a word or a counter share
// one atomic: runs of equal or near keys are common (sorted or clustered data).
fn mark4(x: Quad, valid: u32) {
  var slot = EMPTY_TAG;  // the pending word (counter)
  var acc = 0u;          // its pending bits (count)
  let bits4 = quad_bits(x);
  for (var k = 0u; k < 4u; k++) {
    if (k < valid) {
      let b = bits4[k];
      let s = select(b >> 5u, b, COUNTS);
      if (s != slot) {
        add_cached(slot, acc);
        slot = s;
        acc = 0u;
      }
      acc = select(acc | (1u << (b & 31u)), acc + 1u, COUNTS);
    }
  }
  add_cached(slot, acc);
}

// Keys of quad v: how many of its 4 lie before n.
fn valid_in(v: u32) -> u32 {
  return min(4u, params.n - min(params.n, v * 4u));
}

// Wide ranges: global atomics behind the workgroup's cache. Each workgroup takes tiles of
// WG * VECS vec4s grid-stride (the cache serves several tiles), each invocation's VECS
// loads of a tile issued together (coalesced).
@compute @workgroup_size(WG)
fn dense_mark(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  for (var c = t; c < CACHE_SLOTS; c += WG) {
    atomicStore(&cache_tag[c], EMPTY_TAG);
    atomicStore(&cache_acc[c], 0u);
  }
  workgroupBarrier();
  let last_vec = (params.n - 1u) / 4u;
  let tiles = (last_vec + WG * VECS) / (WG * VECS);
  for (var tile = group; tile < tiles; tile += params.groups) {
    let first = tile * WG * VECS + t;
    var x: array<Quad, VECS>;
    // unroll
    for (var k = 0u; k < VECS; k++) {
      x[k] = load_quad(min(first + k * WG, last_vec));
    }
    // unroll
    for (var k = 0u; k < VECS; k++) {
      mark4(x[k], valid_in(first + k * WG));
    }
  }
  workgroupBarrier();
  for (var c = t; c < CACHE_SLOTS; c += WG) {
    let slot = atomicLoad(&cache_tag[c]);
    if (slot != EMPTY_TAG) {
      add_global(slot, atomicLoad(&cache_acc[c]));
    }
  }
}

// Narrow ranges (bits, or counters with COUNTS, fit LOCAL_WORDS): the workgroup's share of
// the keys (grid-stride) goes into workgroup memory, then each non-zero word into the
// global one with one atomic.
@compute @workgroup_size(WG)
fn dense_mark_local(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  let slots = select(params.words, (params.words * 32u), COUNTS);  // workgroup words in use
  for (var i = t; i < slots; i += WG) {
    atomicStore(&local_map[i], 0u);
  }
  workgroupBarrier();
  let nvec = (params.n + 3u) / 4u;
  let stride = params.groups * WG;
  for (var v = group * WG + t; v < nvec; v += stride) {
    let bits4 = quad_bits(load_quad(v));
    let valid = valid_in(v);
    for (var k = 0u; k < 4u; k++) {
      if (k < valid) {
        let b = bits4[k];
        if (COUNTS) {
          atomicAdd(&local_map[b], 1u);
        } else {
          atomicOr(&local_map[b >> 5u], 1u << (b & 31u));
        }
      }
    }
  }
  workgroupBarrier();
  for (var i = t; i < slots; i += WG) {
    let w = atomicLoad(&local_map[i]);
    if (w != 0u) {
      add_global(i, w);
    }
  }
}

// The set bits of every word (the counts' scan input); with COUNTS the bitmap is built
// here from the counters (counter i is bit i: a non-zero count is a present key), one
// counter per invocation, so the counters are read coalesced.
@compute @workgroup_size(WG)
fn dense_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  if (COUNTS) {
    // counters group*WG + t; word (group*WG + t) / 32
    if (t < WG / 32u) {
      atomicStore(&word_acc[t], 0u);
    }
    workgroupBarrier();
    let c = group * WG + t;
    if (c < params.n && counts_in[c] != 0u) {
      atomicOr(&word_acc[t / 32u], 1u << (t & 31u));
    }
    workgroupBarrier();
    let w = group * (WG / 32u) + t;
    if (t < WG / 32u && w < params.words) {
      let bitsw = atomicLoad(&word_acc[t]);
      atomicStore(&bitmap[w], bitsw);
      word_bits[w] = countOneBits(bitsw);
    }
  } else {
    let w = group * WG + t;
    if (w < params.words) {
      word_bits[w] = countOneBits(bits[w]);
    }
  }
}

// One bit per invocation (32 consecutive invocations per word): present bits write their
// value, at consecutive positions for consecutive bits.
@compute @workgroup_size(WG)
fn dense_expand(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let b = group_index(wid, nwg) * WG + t;
  let w = b >> 5u;
  if (w >= params.words) {
    return;
  }
  let word = bits[w];
  let below = word & ((1u << (b & 31u)) - 1u);
  let pos = prefix[w] + countOneBits(below);
  if ((word & (1u << (b & 31u))) != 0u) {
    values_out[pos] = value_at(b);
    if (COUNTS) {
      counts_out[pos] = counts_in[b];
    }
  }
  if (w == params.words - 1u && (b & 31u) == 0u) {
    total[0] = prefix[w] + countOneBits(word);
  }
}

// inverse[i]: the position of key i among the unique values. The 8 reads of a vec4's
// keys (word and prefix each) go out together; keys past n read word 0 and are not stored.
// (2^26 keys in 2^24 values on an H200: 0.952 ms, against 0.959 reading them key by key;
// the random reads of the bitmap and the prefixes, L2 hits, bound it. 2026-12-01,
// benchmarks/unique-h200-2026-12-01-4.txt.)
@compute @workgroup_size(WG)
fn dense_inverse(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) t: u32) {
  let v = group_index(wid, nwg) * WG + t;
  let valid = valid_in(v);
  if (valid == 0u) {
    return;
  }
  let b = select(vec4<u32>(0u), quad_bits(load_quad(v)), vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(valid));
  let w = b >> vec4<u32>(5u);
  let words = vec4<u32>(bits[w.x], bits[w.y], bits[w.z], bits[w.w]);
  let before = vec4<u32>(prefix[w.x], prefix[w.y], prefix[w.z], prefix[w.w]);
  let below = (vec4<u32>(1u) << (b & vec4<u32>(31u))) - vec4<u32>(1u);
  let r = before + countOneBits(words & below);
  inverse_out[v * 4u] = r.x;
  if (valid > 1u) { inverse_out[v * 4u + 1u] = r.y; }
  if (valid > 2u) { inverse_out[v * 4u + 2u] = r.z; }
  if (valid > 3u) { inverse_out[v * 4u + 3u] = r.w; }
}

