// One-sweep LSD radix sort (after Adinets & Merrill, "Onesweep", 2022), with decoupled
// fallback (Smith, Levien & Owens, 2025) instead of waiting. ops/radix_sort.py records:
//
//   radix_onesweep_clear      1 workgroup: zero the 4 x 256 global digit counts and the
//                             4 tile counters
//   -> radix_onesweep_histogram
//                             every digit's counts at once (one read of the keys), added
//                             into `hist` with atomics; zeroes the first pass's state words
//   -> radix_onesweep_bins    1 workgroup: exclusive sum of each digit's 256 counts: hist
//                             then holds where each digit value starts in the output
//   -> one radix_onesweep_* pass per digit: each workgroup ranks its tile's keys by the
//      digit, learns the tile's global digit offsets from the tiles before it (look-back,
//      below) and scatters.
//
// Joined after radix_sort.wgsl (Params, bindings, load_key, the split ranking) and, on
// adapters with subgroups, radix_scatter_match.wgsl and radix_onesweep_match.wgsl.
// The keys are in one binding (the host uses the multi-pass sort otherwise).
//
// THIS KERNEL READS OTHER WORKGROUPS' RESULTS INSIDE ONE DISPATCH, and never waits for
// them. Each (tile, digit) has one atomic state word: 2 flag bits and a 30-bit count
// (so n < 2^30; the host checks), flag and count written together by one atomicStore:
//   0               nothing published yet
//   AGGREGATE | c   the tile holds c keys with this digit
//   INCLUSIVE | c   c keys with this digit precede the tile's end in the output (the
//                   digit's global start included)
// A tile publishes AGGREGATE as soon as it has counted its keys (match passes with EARLY,
// radix_onesweep_match.wgsl: before ranking them) or ranked them, walks back over its
// predecessors summing counts until it meets an INCLUSIVE word, then publishes INCLUSIVE.
// A predecessor's word is polled at most params.spin times; if it is still 0, the
// workgroup counts that predecessor's digits from its keys itself (keys_in is the
// previous dispatch's output, so they are there) and walks on. No loop waits without
// bound: each round of the walk resolves at least the highest tile some digit waits for.

const FLAG_AGGREGATE: u32 = 0x40000000u;
const FLAG_INCLUSIVE: u32 = 0x80000000u;
const VALUE_MASK: u32 = 0x3fffffffu;
const HIST_WORDS: u32 = 4u * RADIX;
const CLAIM_TILES: u32 = 8u;  // flag: tiles are claimed from a counter (claims[digit])

@group(0) @binding(10) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(11) var<storage, read_write> hist: array<atomic<u32>>;
// One tile counter per digit (CLAIM_TILES), zeroed by radix_onesweep_clear.
@group(0) @binding(12) var<storage, read_write> claims: array<atomic<u32>>;

// ---- the global histogram ----------------------------------------------------------------
var<workgroup> os_hist: array<atomic<u32>, HIST_WORDS>;

@compute @workgroup_size(WG)
fn radix_onesweep_clear(@builtin(local_invocation_index) t: u32) {
  for (var w = t; w < HIST_WORDS; w += WG) {
    atomicStore(&hist[w], 0u);
  }
  if (t < 4u) {
    atomicStore(&claims[t], 0u);
  }
}

// Each workgroup counts the 4 digits of params.hist_tiles tiles (transformed keys) and
// adds them to hist (accumulated here, read in the next dispatch).
@compute @workgroup_size(WG)
fn radix_onesweep_histogram(@builtin(workgroup_id) wid: vec3<u32>,
                            @builtin(num_workgroups) nwg: vec3<u32>,
                            @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  for (var w = t; w < HIST_WORDS; w += WG) {
    atomicStore(&os_hist[w], 0u);
  }
  // The first pass's state words of these tiles start at 0 (not published).
  let first_tile = group * params.hist_tiles;
  let last_tile = min(first_tile + params.hist_tiles, params.tiles);
  for (var w = first_tile * RADIX + t; w < last_tile * RADIX; w += WG) {
    atomicStore(&state[params.region + w], 0u);
  }
  workgroupBarrier();
  // A tile's ITEMS keys per invocation loaded before any is counted (written out, clamped
  // loads): one memory latency per tile instead of one per key.
  for (var tile = first_tile; tile < last_tile; tile++) {
    var tile_keys: array<u32, ITEMS>;
    // unroll
    for (var k = 0u; k < ITEMS; k++) {
      tile_keys[k] = load_key(min(tile * TILE + k * WG + t, params.n - 1u));
    }
    // unroll
    for (var k = 0u; k < ITEMS; k++) {
      let key = tile_keys[k];
      if (tile * TILE + k * WG + t < params.n) {
        atomicAdd(&os_hist[key & 0xffu], 1u);
        atomicAdd(&os_hist[RADIX + ((key >> 8u) & 0xffu)], 1u);
        atomicAdd(&os_hist[2u * RADIX + ((key >> 16u) & 0xffu)], 1u);
        atomicAdd(&os_hist[3u * RADIX + (key >> 24u)], 1u);
      }
    }
  }
  workgroupBarrier();
  for (var w = t; w < HIST_WORDS; w += WG) {
    let c = atomicLoad(&os_hist[w]);
    if (c != 0u) {
      atomicAdd(&hist[w], c);
    }
  }
}

@compute @workgroup_size(WG)
fn radix_onesweep_bins(inv: Invocation) {
  let t = inv.index;
  let digit = t < RADIX;  // WG may be larger than RADIX: the others add 0
  for (var d = 0u; d < 4u; d++) {
    workgroupBarrier();  // the previous digit's scan has read its workgroup memory
    var count = 0u;
    if (digit) {
      count = atomicLoad(&hist[d * RADIX + t]);
    }
    let before = block_exclusive_scan(inv, count);
    if (digit) {
      atomicStore(&hist[d * RADIX + t], before);
    }
  }
}

// ---- the look-back ---------------------------------------------------------------------
// The tile this workgroup sorts: its index (from params.tile_offset, the dispatch's first
// tile: a pass may be several dispatches, ops/radix_sort.py onesweep_schedule), or with
// CLAIM_TILES the next one from this pass's counter (an atomic claim, like an
// append-buffer reservation: tiles are taken in the order workgroups start, so the tiles
// before one have started when it looks back; a dispatch claims as many as it has
// workgroups, so the next one goes on from there).
var<workgroup> os_tile: u32;

fn onesweep_tile(t: u32, group: u32) -> u32 {
  if ((params.flags & CLAIM_TILES) == 0u) {
    return params.tile_offset + group;
  }
  if (t == 0u) {
    os_tile = atomicAdd(&claims[params.digit], 1u);
  }
  return workgroupUniformLoad(&os_tile);
}

var<workgroup> os_stuck: atomic<u32>;
var<workgroup> os_stuck_uniform: u32;
var<workgroup> os_fallback: array<atomic<u32>, RADIX>;

fn onesweep_publishes(group: u32) -> bool {
  return params.fault == 0u || group % params.fault != params.fault - 1u;
}

// A predecessor's state word, polled at most params.spin times (0: never published yet).
fn onesweep_poll(word: u32) -> u32 {
  var s = 0u;
  for (var k = 0u; k < params.spin; k++) {
    s = atomicLoad(&state[word]);
    if (s != 0u) {
      break;
    }
  }
  return s;
}

// The word of the tile before `tiles_before` (0 past tile 0, and 0 when params.spin is 0:
// the forced-fallback mode reads nothing). A round of the look-back reads LOOK_AHEAD such
// words at once (the preamble sets it).
fn onesweep_word(t: u32, tiles_before: u32) -> u32 {
  if (tiles_before == 0u || params.spin == 0u) {
    return 0u;
  }
  return atomicLoad(&state[params.region + (tiles_before - 1u) * RADIX + t]);
}

// The fallback: counts the digits of tile `tile` from its keys into os_fallback.
fn onesweep_count_tile(t: u32, tile: u32) {
  for (var k = 0u; k < ITEMS; k++) {
    let i = tile * TILE + k * WG + t;
    if (i < params.n) {
      atomicAdd(&os_fallback[digit_of(load_key(i))], 1u);
    }
  }
  workgroupBarrier();
}

// Invocation t < RADIX publishes tile `group`'s count of digit t: AGGREGATE, or for tile
// 0 INCLUSIVE (where the digit starts plus the count).
fn onesweep_publish(t: u32, group: u32, count: u32) {
  let mine = params.region + group * RADIX + t;
  if (group == 0u) {
    atomicStore(&state[mine], FLAG_INCLUSIVE | (atomicLoad(&hist[params.digit * RADIX + t]) + count));
  } else {
    atomicStore(&state[mine], FLAG_AGGREGATE | count);
  }
}

// Invocation t (digit t) passes its tile's count of digit t; returns where the tile's
// keys with digit t start in the output. Called by the whole workgroup (barriers);
// publishes the tile's state words and clears its words of the next pass. Invocations
// t >= RADIX (workgroups larger than RADIX) have no digit: they only take the barriers.
fn onesweep_offset(t: u32, group: u32, count: u32) -> u32 {
  return onesweep_lookback(t, group, count, false);
}

// onesweep_offset for a tile that has published its state words already (`published`:
// onesweep_publish called before) or not.
fn onesweep_lookback(t: u32, group: u32, count: u32, published: bool) -> u32 {
  let has_digit = t < RADIX;
  let digit = min(t, RADIX - 1u);
  // Workgroup memory is not assumed zero: another kernel may have used it before.
  if (has_digit) {
    atomicStore(&os_fallback[digit], 0u);
  }
  if (t == 0u) {
    atomicStore(&os_stuck, 0u);
  }
  let bin = atomicLoad(&hist[params.digit * RADIX + digit]);
  let mine = params.region + group * RADIX + digit;
  let publish = has_digit && onesweep_publishes(group);
  if (publish && !published) {
    onesweep_publish(digit, group, count);
  }
  if (has_digit) {
    atomicStore(&state[params.next_region + group * RADIX + digit], 0u);
  }
  var exclusive = 0u;
  var open = group > 0u && has_digit;  // tiles 0 .. next-1 are not yet summed
  var next = group;
  // wgprim: allow(lookback-depth) -- the host bounds the walk: where the driver caps loop iterations a pass runs in windows of tiles a look-back fits in (ops/radix_sort.py onesweep_schedule)
  for (var round = 0u; round <= group; round++) {
    // Walk back while the predecessors' words are there, without the other digits.
    var stuck = 0u;  // 1 + the tile this digit found unpublished (0: none)
    loop {
      if (!open || next == 0u) {
        break;
      }
      // The next LOOK_AHEAD predecessors' words at once (independent loads: one memory
      // latency), summed nearest first up to the first one not yet published. Written out
      // (unroll.py) and without branches, so that the words stay in registers.
      var ahead: array<u32, LOOK_AHEAD>;
      // unroll
      for (var j = 0u; j < LOOK_AHEAD; j++) {
        ahead[j] = onesweep_word(digit, select(0u, next - j, next >= j));
      }
      var taken = 0u;
      var going = true;
      // unroll
      for (var j = 0u; j < LOOK_AHEAD; j++) {
        let s = ahead[j];
        going = going && open && next > 0u && s != 0u;
        exclusive += select(0u, s & VALUE_MASK, going);
        next -= select(0u, 1u, going);
        taken += select(0u, 1u, going);
        open = open && !(going && (s & FLAG_INCLUSIVE) != 0u);
      }
      if (taken == 0u) {
        // The nearest predecessor has published nothing yet: poll it a bounded number of times.
        let s = onesweep_poll(params.region + (next - 1u) * RADIX + digit);
        if (s == 0u) {
          stuck = next;
          break;
        }
        exclusive += s & VALUE_MASK;
        next -= 1u;
        if ((s & FLAG_INCLUSIVE) != 0u) {
          open = false;
        }
      }
    }
    if (open && next == 0u) {
      exclusive += bin;  // summed every tile before: add where the digit starts
      open = false;
    }
    if (stuck != 0u) {
      atomicMax(&os_stuck, stuck);
    }
    workgroupBarrier();
    if (t == 0u) {
      os_stuck_uniform = atomicLoad(&os_stuck);
      atomicStore(&os_stuck, 0u);
    }
    let worst = workgroupUniformLoad(&os_stuck_uniform);
    if (worst == 0u) {
      break;
    }
    // Decoupled fallback: count the highest unpublished tile's digits ourselves. Every
    // digit still open waits at or below it, so the highest wait drops each round.
    onesweep_count_tile(t, worst - 1u);
    if (stuck == worst) {
      exclusive += atomicLoad(&os_fallback[digit]);
      next -= 1u;
    }
    workgroupBarrier();
    if (has_digit) {
      atomicStore(&os_fallback[digit], 0u);
    }
  }
  if (group == 0u) {
    return bin;
  }
  if (publish) {
    atomicStore(&state[mine], FLAG_INCLUSIVE | (exclusive + count));
  }
  return exclusive;
}

// ---- passes ranked by 4-bit splits (adapters without subgroups) ---------------------------
// The tile the workgroup sorts (NO_TILE: a workgroup past the grid's work).
const NO_TILE: u32 = 0xffffffffu;

fn onesweep_claim(t: u32, wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  let index = group_index(wid, nwg);
  if (index >= params.groups) {
    return NO_TILE;
  }
  return onesweep_tile(t, index);
}

// The split pass after the tile's keys (and values) are loaded.
fn onesweep_split(inv: Invocation, group: u32, valid: u32, with_values: bool) {
  let t = inv.index;
  split_rank(inv, valid, with_values);
  split_scatter_keys(t, onesweep_offset(t, group, counters[t] - digit_base[t]), valid);
}

@compute @workgroup_size(WG)
fn radix_onesweep_keys(inv: Invocation) {
  let group = onesweep_claim(inv.index, inv.wid, inv.nwg);
  if (group == NO_TILE) {
    return;
  }
  onesweep_split(inv, group, split_load(inv.index, group), false);
}

@compute @workgroup_size(WG)
fn radix_onesweep_pairs(inv: Invocation) {
  let group = onesweep_claim(inv.index, inv.wid, inv.nwg);
  if (group == NO_TILE) {
    return;
  }
  let valid = split_load(inv.index, group);
  load_tile_vals(inv.index, group * TILE, valid);
  onesweep_split(inv, group, valid, true);
  write_vals(inv.index, valid);
}
