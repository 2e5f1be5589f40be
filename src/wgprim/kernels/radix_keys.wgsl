// Order-preserving key transforms shared by the radix and bitonic sorts (put in their
// preamble by ops/radix_sort.py and ops/bitonic.py).
//
// mode = kind (0 u32, 1 i32, 2 f32) | DESCENDING. The unsigned order of to_radix(k) is
// numpy's order of k, reversed when descending.

const KIND_I32: u32 = 1u;
const KIND_F32: u32 = 2u;
const DESCENDING: u32 = 4u;

// Unsigned order of the transformed key = numpy's order of the key. Floats: every NaN
// becomes the canonical quiet NaN (sorted after +inf) and -0.0 becomes +0.0, so that the
// two zeros are equal keys and keep their input order.
fn to_radix(raw: u32, mode: u32) -> u32 {
  let kind = mode & 3u;
  var k = raw;
  if (kind == KIND_I32) {
    k = k ^ 0x80000000u;
  } else if (kind == KIND_F32) {
    if ((k & 0x7fffffffu) > 0x7f800000u) {
      k = 0x7fc00000u;
    }
    if (k == 0x80000000u) {
      k = 0u;
    }
    k = select(k ^ 0x80000000u, ~k, (k & 0x80000000u) != 0u);
  }
  if ((mode & DESCENDING) != 0u) {
    k = ~k;
  }
  return k;
}

fn from_radix(key: u32, mode: u32) -> u32 {
  let kind = mode & 3u;
  var k = key;
  if ((mode & DESCENDING) != 0u) {
    k = ~k;
  }
  if (kind == KIND_I32) {
    k = k ^ 0x80000000u;
  } else if (kind == KIND_F32) {
    k = select(~k, k ^ 0x80000000u, (k & 0x80000000u) != 0u);
  }
  return k;
}
