// float64 elements for the exact sum (kernels/exact_sum.wgsl): each one as a vec2<u32>
// (low word, high word of its bits), split with integer operations only.
//
// A finite float64 is m * 2^p * 2^-1074 with m < 2^53 and 0 <= p <= 2045 (p = the biased
// exponent minus one; 0 for subnormals, whose m has no hidden bit). split() returns m
// shifted left by p % 16 as a 96-bit (w0, w1, w2) and the 16-bit digit where it lands,
// p / 16: the sum's digit d weighs 2^(16 d) * 2^-1074.

alias E = vec2<u32>;
const DIGITS: u32 = 132u;  // (2045 + 53 + 15) / 16 rounded up, so digit + 4 < DIGITS

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
  let p = max(e, 1u) - 1u;
  let shift = p % 16u;
  s.digit = p / 16u;
  s.w0 = lo << shift;
  if (shift == 0u) {  // a shift by 32 is not defined in WGSL
    s.w1 = mh;
    s.w2 = 0u;
  } else {
    s.w1 = (mh << shift) | (lo >> (32u - shift));
    s.w2 = mh >> (32u - shift);
  }
  return s;
}
