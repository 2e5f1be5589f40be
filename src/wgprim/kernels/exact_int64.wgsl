// int64 elements for the exact sums of mean, var and std (kernels/exact_sum.wgsl): each
// one as a vec2<u32> (low word, high word). An integer is its own mantissa: m = |v| (up to
// 2^63), p = 0 (units of 1).

alias E = vec2<u32>;
// Digits of 16 bits the accumulators need for every term's window (the host carries the
// growth past them): sums (5 digits from 0), squares (9 digits from 0).
const SUM_DIGITS: u32 = 5u;
const SQUARE_DIGITS: u32 = 9u;

fn split(v: E) -> Split {
  var s: Split;
  s.kind = FINITE;
  s.negative = (v.y >> 31u) == 1u;
  var lo = v.x;
  var hi = v.y;
  if (s.negative) {  // |v| = ~v + 1 over 64 bits, also for -2^63
    lo = ~v.x + 1u;
    hi = ~v.y + select(0u, 1u, lo == 0u);
  }
  s.p = 0u;
  s.m = vec4<u32>(lo & 0xffffu, lo >> 16u, hi & 0xffffu, hi >> 16u);
  return s;
}
