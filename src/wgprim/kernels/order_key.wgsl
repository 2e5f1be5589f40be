// Order keys: a u32 whose unsigned order is numpy's order of the values. Every kernel that
// compares values the way numpy does (min/max/argmin/argmax, atomic min/max, sort, unique
// and run-length runs, histogram edges) compares these keys, never floats: some drivers
// flush denormals to zero in float compares (an H200 does), numpy does not.
//
// The rules, stated once (ops/order_key.py has the numpy twin, `host_keys`):
//   u32  the value itself
//   i32  the bits with the sign bit flipped
//   f32  positive: the sign bit set; negative: every bit flipped (so -inf < ... < -0 ...)
//        -0.0 takes the key of +0.0: the two zeros are equal (numpy: -0.0 == 0.0)
//        every NaN, whatever its sign and payload, takes the key of the quiet NaN
//        0x7fc00000, above +inf: NaNs are equal to each other and sort last
//   f16  the key of its f32 value (exact: f16 denormals are normal f32 numbers)
//   u64, i64, f64: the same rules on 64 bits. WGSL has no 64-bit type, so a 64-bit value
//        is a vec2<u32> (x the low word, y the high word: numpy's little-endian layout)
//        and so is its key, compared as (y, x); every f64 NaN takes the key of the quiet
//        NaN 0x7ff8000000000000, and -0.0 the key of +0.0
// from_order_key_* inverts a key: zeros come back as +0.0, NaNs as 0x7fc00000. Whether a
// NaN also *wins* a min or a max is the caller's rule (ops/order_key.py: key_for_min/max).
//
// A min or a max returns one of its input's values bit for bit, which the keys above cannot
// give back (they merge ±0 and every NaN). min_key_* / max_key_* (end of this file) are
// one-to-one instead: IEEE 754's totalOrder (-0.0 just below +0.0; NaNs beyond the
// infinities, by sign and payload) turned so that every NaN lies below every number (min)
// or above it (max). The smallest min key of a set decodes to the exact value it came from.

fn f32_bits_is_nan(bits: u32) -> bool {
  return (bits & 0x7fffffffu) > 0x7f800000u;
}

fn order_key_i32(bits: u32) -> u32 {
  return bits ^ 0x80000000u;
}

fn from_order_key_i32(key: u32) -> u32 {
  return key ^ 0x80000000u;
}

// Branch-free (selects): it runs once per element in the hot loops of min/max and sort.
fn order_key_f32(bits: u32) -> u32 {
  return order_key_f32_nan_apart(select(bits, 0x7fc00000u, f32_bits_is_nan(bits)));  // every NaN -> the quiet NaN
}

// The same key for every value but NaN; a NaN's key lies beyond +inf's (or, with the
// sign bit set, below -inf's), its payload kept. For hot loops that reject NaN anyway
// (a histogram's bin check: no bin's key range holds such a key) and so need not pay
// for making NaNs equal.
fn order_key_f32_nan_apart(bits: u32) -> u32 {
  return order_key_f32_total(select(bits, 0u, bits == 0x80000000u));  // -0.0 -> +0.0
}

// IEEE 754 totalOrder: every bit pattern its own key (-0.0 just below +0.0, negative NaNs
// below -inf, positive NaNs above +inf); from_order_key_f32 inverts it exactly.
fn order_key_f32_total(bits: u32) -> u32 {
  return select(bits | 0x80000000u, ~bits, (bits >> 31u) == 1u);
}

fn from_order_key_f32(key: u32) -> u32 {
  return select(~key, key ^ 0x80000000u, (key >> 31u) == 1u);
}

// -- 64-bit values and keys: vec2<u32>(low word, high word) ------------------------------

fn f64_bits_is_nan(bits: vec2<u32>) -> bool {
  let hi = bits.y & 0x7fffffffu;
  return hi > 0x7ff00000u || (hi == 0x7ff00000u && bits.x != 0u);
}

fn order_key_i64(bits: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(bits.x, bits.y ^ 0x80000000u);
}

fn from_order_key_i64(key: vec2<u32>) -> vec2<u32> {
  return vec2<u32>(key.x, key.y ^ 0x80000000u);
}

fn order_key_f64(bits: vec2<u32>) -> vec2<u32> {
  // every NaN -> the quiet NaN
  return order_key_f64_nan_apart(select(bits, vec2<u32>(0u, 0x7ff80000u), f64_bits_is_nan(bits)));
}

// As order_key_f32_nan_apart: -0.0 -> +0.0, a NaN's payload kept beyond the infinities.
fn order_key_f64_nan_apart(bits: vec2<u32>) -> vec2<u32> {
  let zero = bits.y == 0x80000000u && bits.x == 0u;
  return order_key_f64_total(select(bits, vec2<u32>(0u, 0u), zero));
}

fn order_key_f64_total(bits: vec2<u32>) -> vec2<u32> {
  return select(vec2<u32>(bits.x, bits.y | 0x80000000u), ~bits, (bits.y >> 31u) == 1u);
}

fn from_order_key_f64(key: vec2<u32>) -> vec2<u32> {
  return select(~key, vec2<u32>(key.x, key.y ^ 0x80000000u), (key.y >> 31u) == 1u);
}

// a < b for 64-bit keys (unsigned, high word first)
fn key64_less(a: vec2<u32>, b: vec2<u32>) -> bool {
  return a.y < b.y || (a.y == b.y && a.x < b.x);
}

// -- keys of min and max results: one-to-one, so the result is an input's own bits ---------
// totalOrder's keys turned by the number of NaNs of one sign (2^23 - 1 for f32, 2^52 - 1 for
// f64), modulo 2^32 (2^64): min keys put the positive NaNs below the negative ones and those
// below -inf; max keys put the negative NaNs above the positive ones, above +inf. So of
// several NaNs a min returns the positive one with the smallest payload, else the negative
// one with the largest; a max the negative one with the smallest payload, else the positive
// one with the largest; of ±0, a min returns -0.0 and a max +0.0 whenever both are there.
// ops/order_key.py (host_min_max) is the numpy twin. The 64-bit forms need add64
// (kernels/int64.wgsl), which ops/order_key.py puts in front of this file for 64-bit dtypes.

const F32_NAN_KEYS: u32 = 0x7fffffu;

fn min_key_f32(bits: u32) -> u32 {
  return order_key_f32_total(bits) + F32_NAN_KEYS;  // wraps: positive NaNs to 0 .. 2^23 - 2
}

fn from_min_key_f32(key: u32) -> u32 {
  return from_order_key_f32(key - F32_NAN_KEYS);
}

fn max_key_f32(bits: u32) -> u32 {
  return order_key_f32_total(bits) - F32_NAN_KEYS;  // wraps: negative NaNs to the top
}

fn from_max_key_f32(key: u32) -> u32 {
  return from_order_key_f32(key + F32_NAN_KEYS);
}
