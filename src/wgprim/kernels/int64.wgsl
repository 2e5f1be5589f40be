// 64-bit integer arithmetic on vec2<u32> (x the low word, y the high word: numpy's
// little-endian layout of uint64 and int64). WGSL has no 64-bit integer type; these are
// the only functions that do arithmetic on such pairs, for every kernel that needs it
// (ops/operators.py puts this file in the preamble of uint64 and int64 operators).
//
// Everything wraps modulo 2^64, as numpy's uint64 and int64 arithmetic does. In two's
// complement a signed sum or product has the same bits modulo 2^64 as the unsigned one,
// so one function serves both dtypes. Comparisons go through the order keys
// (kernels/order_key.wgsl: order_key_i64, key64_less), not through these.

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let lo = a.x + b.x;
  return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));  // the carry out of the low word
}

// The full 64-bit product of two u32, from 16-bit halves (no WGSL multiply gives the high
// word): a * b = p11 * 2^32 + (p01 + p10) * 2^16 + p00, each partial product below 2^32.
fn mul32x32(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let middle = ((a0 * b0) >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);  // < 3 * 2^16
  let hi = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (middle >> 16u);
  return vec2<u32>(a * b, hi);  // the low word is the wrapping u32 product
}

// a * b modulo 2^64: the low words' full product, plus the cross terms' low words in the
// high word (a.y * b.y only reaches bit 64 and above).
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
  let low = mul32x32(a.x, b.x);
  return vec2<u32>(low.x, low.y + a.x * b.y + a.y * b.x);
}
