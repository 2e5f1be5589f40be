// uint32 elements for the exact sums of mean, var and std (kernels/exact_sum.wgsl): an
// integer is its own mantissa: m = v, p = 0 (units of 1).

alias E = u32;
// Digits of 16 bits the accumulators need for every term's window (the host carries the
// growth past them): sums (5 digits from 0), squares (9 digits from 0).
const SUM_DIGITS: u32 = 5u;
const SQUARE_DIGITS: u32 = 9u;

fn split(v: E) -> Split {
  var s: Split;
  s.kind = FINITE;
  s.negative = false;
  s.p = 0u;
  s.m = vec4<u32>(v & 0xffffu, v >> 16u, 0u, 0u);
  return s;
}
