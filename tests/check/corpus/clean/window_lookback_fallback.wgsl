// A look-back in windows with decoupled fallback, split over helper functions: the whole
// workgroup loops on workgroupUniformLoad(&lb_end); a helper reads a window of predecessor
// words (flag and value packed in one atomic), moves lb_end back, or counts a poll through
// a pointer and, past the budget, names the predecessor in lb_fallback; the workgroup then
// reduces that tile itself. Every way around moves lb_end or advances the poll count.
const NOT_READY = 0u;
const AGGREGATE = 1u;
const INCLUSIVE = 2u;
const DONE = 0xffffffffu;
const WINDOW = 32u;
const SPIN_BUDGET = 4u;
@group(0) @binding(0) var<storage, read_write> states: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
var<workgroup> lb_end: u32;
var<workgroup> lb_fallback: u32;
var<workgroup> lb_prefix: u32;
var<workgroup> window_words: array<u32, WINDOW>;
var<workgroup> partial: array<u32, 64>;

fn windows(t: u32, end: u32, acc: ptr<function, u32>, polls: ptr<function, u32>) {
  if (t < WINDOW) {
    var w = (0u << 2u) | INCLUSIVE;
    if (t < end) { w = atomicLoad(&states[end - 1u - t]); }
    window_words[t] = w;
  }
  workgroupBarrier();
  if (t == 0u) {
    var k = 0u;
    var finished = false;
    for (; k < WINDOW; k++) {
      let w = window_words[k];
      if ((w & 3u) == NOT_READY) { break; }
      *acc += w >> 2u;
      if ((w & 3u) == INCLUSIVE) { finished = true; break; }
    }
    if (finished) {
      lb_prefix = *acc;
      lb_end = DONE;
    } else if (k > 0u) {
      lb_end = end - k;
      *polls = 0u;
    } else {
      *polls += 1u;
      if (*polls > SPIN_BUDGET) {
        lb_fallback = end - 1u;
        *polls = 0u;
      }
    }
  }
}

fn reduce_tile(t: u32, tile: u32) -> u32 {
  partial[t] = input[tile * 64u + t];
  workgroupBarrier();
  var s = 0u;
  for (var i = 0u; i < 64u; i++) { s += partial[i]; }
  workgroupBarrier();
  return s;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let tile = wid.x;
  let mine = reduce_tile(t, tile);
  var acc = 0u;
  var polls = 0u;
  if (t == 0u) {
    atomicStore(&states[tile], (mine << 2u) | select(INCLUSIVE, AGGREGATE, tile != 0u));
    lb_end = select(DONE, tile, tile != 0u);
    lb_fallback = DONE;
    lb_prefix = 0u;
  }
  loop {  // expect: lookback-depth (its walk reaches as far back as the dispatch)
    let end = workgroupUniformLoad(&lb_end);
    if (end == DONE) { break; }
    windows(t, end, &acc, &polls);
    let fallback = workgroupUniformLoad(&lb_fallback);
    if (fallback != DONE) {
      let reduced = reduce_tile(t, fallback);
      if (t == 0u) {
        acc += reduced;
        lb_end = fallback;
        lb_fallback = DONE;
      }
    }
  }
  let prefix = workgroupUniformLoad(&lb_prefix);
  if (t == 0u) { atomicStore(&states[tile], ((prefix + mine) << 2u) | INCLUSIVE); }
  out[tile * 64u + t] = prefix + mine;
}
