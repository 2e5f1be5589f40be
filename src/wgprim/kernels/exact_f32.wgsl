// float32 elements for the exact sums (kernels/exact_sum.wgsl): each one as the u32 of its
// bits, split with integer operations only (no float arithmetic, so no compiler may
// reassociate or fuse it).
//
// A finite float32 is m * 2^p * 2^-149 with m < 2^24 and 0 <= p <= 253 (p = the biased
// exponent minus one; 0 for subnormals).

alias E = u32;
// Digits of 16 bits the accumulators need, so that every term's window fits:
// sums (p / 16 + 5 digits), squares (2p / 16 + 9 digits).
const SUM_DIGITS: u32 = 20u;
const SQUARE_DIGITS: u32 = 40u;

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
  s.p = max(e, 1u) - 1u;
  s.m = vec4<u32>(m & 0xffffu, m >> 16u, 0u, 0u);
  return s;
}
