// What split() (kernels/exact_f64.wgsl, exact_f32.wgsl) returns for one element; put
// before the format's file, which kernels/exact_sum.wgsl follows.

const FINITE: u32 = 0u;
const POS_INF: u32 = 1u;
const NEG_INF: u32 = 2u;
const NOT_A_NUMBER: u32 = 3u;

struct Split {
  kind: u32,       // FINITE, POS_INF, NEG_INF or NOT_A_NUMBER
  negative: bool,  // the sign bit
  digit: u32,      // the 16-bit digit of the sum where w0's lowest bit lands
  w0: u32,         // the magnitude, shifted to a digit boundary: w0 + w1 * 2^32 + w2 * 2^64
  w1: u32,
  w2: u32,
}
