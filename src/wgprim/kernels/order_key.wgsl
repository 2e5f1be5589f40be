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
// from_order_key_* inverts a key: zeros come back as +0.0, NaNs as 0x7fc00000. Whether a
// NaN also *wins* a min or a max is the caller's rule (ops/order_key.py: key_for_min/max).

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
  let b = select(bits, 0u, bits == 0x80000000u);         // -0.0 -> +0.0
  return select(b | 0x80000000u, ~b, (b >> 31u) == 1u);
}

fn from_order_key_f32(key: u32) -> u32 {
  return select(~key, key ^ 0x80000000u, (key >> 31u) == 1u);
}
