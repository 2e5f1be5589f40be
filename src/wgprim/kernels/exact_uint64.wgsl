// uint64 elements for the exact sums of mean, var and std (kernels/exact_sum.wgsl): each
// one as a vec2<u32> (low word, high word); an integer is its own mantissa: m = v, p = 0.

alias E = vec2<u32>;
// Digits of 16 bits the accumulators need for every term's window (the host carries the
// growth past them): sums (5 digits from 0), squares (9 digits from 0).
const SUM_DIGITS: u32 = 5u;
const SQUARE_DIGITS: u32 = 9u;

fn split(v: E) -> Split {
  var s: Split;
  s.kind = FINITE;
  s.negative = false;
  s.p = 0u;
  s.m = vec4<u32>(v.x & 0xffffu, v.x >> 16u, v.y & 0xffffu, v.y >> 16u);
  return s;
}
