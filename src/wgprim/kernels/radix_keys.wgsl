// The sorts' key transform (put in their preamble, after order_key.wgsl, by
// ops/radix_sort.py and ops/bitonic.py): the order keys of order_key.wgsl chosen at run
// time by `mode`, reversed when descending.
//
// mode = kind (0 u32, 1 i32, 2 f32) | DESCENDING. The unsigned order of to_radix(k) is
// numpy's order of k, reversed when descending. Floats: -0.0 and +0.0 are equal keys
// (they keep their input order) and every NaN sorts after +inf (first when descending).

const KIND_I32: u32 = 1u;
const KIND_F32: u32 = 2u;
const DESCENDING: u32 = 4u;

fn to_radix(raw: u32, mode: u32) -> u32 {
  let kind = mode & 3u;
  var k = raw;
  if (kind == KIND_I32) {
    k = order_key_i32(raw);
  } else if (kind == KIND_F32) {
    k = order_key_f32(raw);
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
    k = from_order_key_i32(k);
  } else if (kind == KIND_F32) {
    k = from_order_key_f32(k);
  }
  return k;
}
