// searchsorted: for each query q, the number of elements of a sorted array that come
// before it (side "left": keys < key(q); side "right": keys <= key(q)).
//
// Two dispatches per window of the sorted array (one storage binding each):
//   search_splitters  splitter j = key(sorted[j * S]) for the window's j (S a power of
//                     two, chosen so that at most TABLE splitters cover the array)
//   search            every workgroup copies the splitters into workgroup memory once,
//                     then strides over tiles of WG * QPI queries. Each query is searched
//                     first among the splitters (workgroup memory), which leaves it a range
//                     of S - 1 elements, then inside that range in global memory. A query
//                     whose range lies in another window is written by that window's
//                     dispatch (ranges never straddle windows: windows are whole multiples
//                     of S); a query before every splitter (the answer 0) by the first.
// With at most TABLE elements (S = 1), the splitters are the array: the search never
// leaves workgroup memory ("many queries into few values").
//
// Both searches are the branch-free binary search of Khuong and Morin ("Array Layouts for
// Comparison-Based Searching", 2017): each step halves the range by one comparison and a
// select, with no data-dependent branch; a range of 2^k - 1 elements takes exactly k steps
// for every query, so the QPI queries of an invocation step together and their loads are
// in flight at once. Loads are clamped into range, never guarded by a branch.
//
// search_fixed (mixed dtypes only): queries whose answer the host already knows (an
// integer array and a query beyond its dtype's range, compared as numpy compares them in a
// wider type) take it from `fixed` after the search.
//
// The preamble defines alias T (the elements: u32, i32, f32, f16, or vec2<u32> for 64-bit
// dtypes), the order keys (ops/order_key.py: alias OrderKey, key(x: T) -> OrderKey), and
// fn before(k: OrderKey, q: OrderKey) -> bool, the side's comparison.

override WG: u32 = 256u;
override TABLE: u32 = 4096u;  // splitters held in workgroup memory (>= params.splitters)
const QPI: u32 = 4u;          // queries per invocation and tile column
const NONE: u32 = 0xffffffffu;

struct Params {
  queries: u32,       // queries in this window (search_splitters: splitters in this window)
  groups: u32,        // workgroups with work (the folded grid may be larger)
  n: u32,             // elements of the sorted array
  step: u32,          // S: splitter j is the element j * S
  splitters: u32,     // J: splitters of the whole array
  first: u32,         // first element of the bound window of the sorted array
  count: u32,         // elements in that window
  levels: u32,        // steps of the search inside a range: log2(S)
  table_levels: u32,  // steps of the search among the splitters: bit length of J
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> sorted: array<T>;
@group(0) @binding(2) var<storage, read> queries: array<T>;
@group(0) @binding(3) var<storage, read> splitters: array<OrderKey>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read_write> splitters_out: array<OrderKey>;
@group(0) @binding(6) var<storage, read> fixed: array<u32>;

var<workgroup> table: array<OrderKey, TABLE>;

fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}

@compute @workgroup_size(WG)
fn search_splitters(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                    @builtin(local_invocation_index) t: u32) {
  let i = group_index(wid, nwg) * WG + t;  // the window's i-th splitter
  if (i >= params.queries) {
    return;
  }
  splitters_out[params.first / params.step + i] = key(sorted[i * params.step]);
}

@compute @workgroup_size(WG)
fn search(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) t: u32) {
  let group = group_index(wid, nwg);
  if (group >= params.groups) {
    return;
  }
  for (var j = t; j < params.splitters; j += WG) {
    table[j] = splitters[j];
  }
  workgroupBarrier();
  let step = params.step;
  let tiles = (params.queries + WG * QPI - 1u) / (WG * QPI);
  let last_query = params.queries - 1u;
  let last_element = params.count - 1u;
  for (var tile = group; tile < tiles; tile += params.groups) {
    let first_query = tile * WG * QPI + t;
    var q: array<OrderKey, QPI>;
    var base: array<u32, QPI>;
    var m: array<u32, QPI>;
    // unroll
    for (var k = 0u; k < QPI; k++) {
      q[k] = key(queries[min(first_query + k * WG, last_query)]);
      base[k] = 0u;
      m[k] = params.splitters;
    }
    // Among the splitters: base = the number of splitters before q.
    for (var level = 0u; level < params.table_levels; level++) {
      // unroll
      for (var k = 0u; k < QPI; k++) {
        let half = m[k] / 2u;
        let probe = base[k] + half;
        let go = (m[k] > 0u) & before(table[min(probe, TABLE - 1u)], q[k]);  // `&`: no branch around the load
        base[k] = select(base[k], probe + 1u, go);
        m[k] = select(half, m[k] - half - 1u, go);
      }
    }
    // c splitters before q: the answer is in ((c - 1) S, min(c S, n)]; elements (c - 1) S + 1
    // up to that end (excluded) are left to compare (none when c = 0: the answer is 0).
    var mine: array<bool, QPI>;
    // unroll
    for (var k = 0u; k < QPI; k++) {
      let c = base[k];
      let block = (c - 1u) * step;
      let here = c > 0u && block >= params.first && block - params.first < params.count;
      mine[k] = here || (c == 0u && params.first == 0u);
      base[k] = select(block + 1u, 0u, c == 0u);
      m[k] = select(0u, min(step, params.n - block) - 1u, here);
    }
    // Inside the range, in global memory (this window's elements).
    for (var level = 0u; level < params.levels; level++) {
      // unroll
      for (var k = 0u; k < QPI; k++) {
        let half = m[k] / 2u;
        let probe = base[k] + half;
        let x = sorted[min(probe - params.first, last_element)];
        let go = (m[k] > 0u) & before(key(x), q[k]);
        base[k] = select(base[k], probe + 1u, go);
        m[k] = select(half, m[k] - half - 1u, go);
      }
    }
    // unroll
    for (var k = 0u; k < QPI; k++) {
      let i = first_query + k * WG;
      if (i < params.queries && mine[k]) {
        out[i] = base[k];
      }
    }
  }
}

@compute @workgroup_size(WG)
fn search_fixed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
  let i = group_index(wid, nwg) * WG + t;
  if (i >= params.queries) {
    return;
  }
  let answer = fixed[i];
  if (answer != NONE) {
    out[i] = answer;
  }
}
