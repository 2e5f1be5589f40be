// float64 elements for the exact sums (kernels/exact_sum.wgsl): each one as a vec2<u32>
// (low word, high word of its bits), split with integer operations only.
//
// A finite float64 is m * 2^p * 2^-1074 with m < 2^53 and 0 <= p <= 2045 (p = the biased
// exponent minus one; 0 for subnormals, whose m has no hidden bit).

alias E = vec2<u32>;
// Digits of 16 bits the accumulators need, so that every term's window fits:
// sums (p / 16 + 5 digits), squares (2p / 16 + 9 digits).
const SUM_DIGITS: u32 = 132u;
const SQUARE_DIGITS: u32 = 264u;

fn split(v: E) -> Split {
  var s: Split;
  let lo = v.x;
  let hi = v.y;
  let e = (hi >> 20u) & 0x7ffu;
  let frac_hi = hi & 0xfffffu;
  s.negative = (hi >> 31u) == 1u;
  if (e == 0x7ffu) {
    s.kind = select(select(POS_INF, NEG_INF, s.negative), NOT_A_NUMBER, frac_hi != 0u || lo != 0u);
    return s;
  }
  s.kind = FINITE;
  let mh = select(frac_hi, frac_hi | 0x100000u, e != 0u);  // the top 21 bits of m
  s.p = max(e, 1u) - 1u;
  s.m = vec4<u32>(lo & 0xffffu, lo >> 16u, mh & 0xffffu, mh >> 16u);
  return s;
}
