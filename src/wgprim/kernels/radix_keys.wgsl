// The sorts' key transform (put in their preamble, after order_key.wgsl, by
// ops/radix_sort.py, ops/bitonic.py, ops/segmented.py and ops/topk.py): the order keys of
// order_key.wgsl chosen by `mode`, reversed when descending.
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

// The radix passes' key of a key's raw bits (kernels/radix_sort.wgsl). The passes move the
// input's own bits and take every pass's digit from this key, so that a sort returns the
// input's bits (-0.0 and every NaN payload kept). Its order is to_radix's, except where
// that would leave no raw bits with the key all ones, which pad a partial tile (sorted
// after every key of the tile: digit 255 in every pass, and last among equal keys): a
// float NaN's key is all ones ascending (0 descending) instead of the quiet NaN's, and
// descending float keys are moved up by 0x007fffff (so -inf's is all ones).
fn radix_key(raw: u32, mode: u32) -> u32 {
  if ((mode & 3u) != KIND_F32) {
    return to_radix(raw, mode);
  }
  let k = order_key_f32_nan_apart(raw);  // non-NaN keys: 0x007fffff (-inf) .. 0xff800000 (+inf)
  let nan = f32_bits_is_nan(raw);
  if ((mode & DESCENDING) != 0u) {
    return select(~k + 0x007fffffu, 0u, nan);
  }
  return select(k, 0xffffffffu, nan);
}

// Raw bits whose radix_key is all ones (the padding of a partial tile).
fn radix_pad(mode: u32) -> u32 {
  let kind = mode & 3u;
  let descending = (mode & DESCENDING) != 0u;
  if (kind == KIND_F32) {
    return select(0xffffffffu, 0xff800000u, descending);  // a NaN; -inf
  }
  if (kind == KIND_I32) {
    return select(0x7fffffffu, 0x80000000u, descending);
  }
  return select(0xffffffffu, 0u, descending);
}
