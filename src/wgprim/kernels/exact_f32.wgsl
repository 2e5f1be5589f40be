// float32 elements for the exact sum (kernels/exact_sum.wgsl): each one as the u32 of its
// bits, split with integer operations only (no float arithmetic, so no compiler may
// reassociate or fuse it).
//
// A finite float32 is m * 2^p * 2^-149 with m < 2^24 and 0 <= p <= 253 (p = the biased
// exponent minus one; 0 for subnormals). split() returns m shifted left by p % 16 as
// (w0, w1, w2) and the 16-bit digit where it lands, p / 16: the sum's digit d weighs
// 2^(16 d) * 2^-149.

alias E = u32;
const DIGITS: u32 = 20u;  // (253 + 24 + 15) / 16 rounded up, so digit + 4 < DIGITS

fn split(v: E) -> Split {
  var s: Split;
  let e = (v >> 23u) & 0xffu;
  let frac = v & 0x7fffffu;
  s.negative = (v >> 31u) == 1u;
  if (e == 0xffu) {
    s.kind = select(select(POS_INF, NEG_INF, s.negative), NOT_A_NUMBER, frac != 0u);
    return s;
  }
  s.kind = FINITE;
  let m = select(frac, frac | 0x800000u, e != 0u);
  let p = max(e, 1u) - 1u;
  let shift = p % 16u;
  s.digit = p / 16u;
  s.w0 = m << shift;
  s.w1 = select(m >> (32u - shift), 0u, shift == 0u);  // a shift by 32 is not defined in WGSL
  s.w2 = 0u;
  return s;
}
