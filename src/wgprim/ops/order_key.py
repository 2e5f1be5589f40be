"""Order keys: values -> unsigned keys whose order is numpy's order of the values.

The rules live once, in kernels/order_key.wgsl (read its header): integers keep their
order, -0.0 and +0.0 share one key, every NaN shares one key above +inf. 32-bit (and
16-bit) values have u32 keys; 64-bit values (uint64, int64, float64), which WGSL has no
type for, are vec2<u32> (low word, high word) and so are their keys. `preamble(dt)` puts
that file in front of a kernel with the typed names kernels use (`alias OrderKey`, u32 or
vec2<u32>); `host_keys` is the same transform in numpy (for host-side decisions and for
tests), giving uint32 or uint64 keys.

A NaN-propagating min or max (numpy's min, max, argmin, argmax) additionally lets NaN
win: `key_for_min(x)` is 0 for a NaN, `key_for_max(x)` all ones; both decode (from_key)
back to a NaN. Those keys suit argmin/argmax (±0 equal, the first NaN wins by its index);
a min or max *value* is reduced over `min_key(x)` / `max_key(x)` instead, which are
one-to-one, so that `from_min_key` gives back an input's own bits (-0.0 and NaN payloads
included; the rule is in kernels/order_key.wgsl, its numpy twin is `host_min_max`).
"""
from __future__ import annotations

import numpy as np

from wgprim.pipelines import kernel_source

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))
U64, I64, F64 = (np.dtype(t) for t in (np.uint64, np.int64, np.float64))
WIDE = (U64, I64, F64)  # 64-bit dtypes: vec2<u32> values and keys in kernels

# Typed names over the bit-level transforms: key(x: T) -> u32, from_key(k) -> T, is_nan(x: T).
_TYPED = {
    U32: "fn key(x: T) -> u32 { return x; }\n"
         "fn key_nan_apart(x: T) -> u32 { return x; }\n"
         "fn from_key(k: u32) -> T { return k; }\n"
         "fn is_nan(x: T) -> bool { return false; }\n",
    I32: "fn key(x: T) -> u32 { return order_key_i32(bitcast<u32>(x)); }\n"
         "fn key_nan_apart(x: T) -> u32 { return key(x); }\n"
         "fn from_key(k: u32) -> T { return bitcast<i32>(from_order_key_i32(k)); }\n"
         "fn is_nan(x: T) -> bool { return false; }\n",
    F32: "fn key(x: T) -> u32 { return order_key_f32(bitcast<u32>(x)); }\n"
         "fn key_nan_apart(x: T) -> u32 { return order_key_f32_nan_apart(bitcast<u32>(x)); }\n"
         "fn from_key(k: u32) -> T { return bitcast<f32>(from_order_key_f32(k)); }\n"
         "fn is_nan(x: T) -> bool { return f32_bits_is_nan(bitcast<u32>(x)); }\n",
    # f16 through its f32 value: exact (f16 denormals are normal f32 numbers), NaN stays NaN.
    F16: "fn key(x: T) -> u32 { return order_key_f32(bitcast<u32>(f32(x))); }\n"
         "fn key_nan_apart(x: T) -> u32 { return order_key_f32_nan_apart(bitcast<u32>(f32(x))); }\n"
         "fn from_key(k: u32) -> T { return f16(bitcast<f32>(from_order_key_f32(k))); }\n"
         "fn is_nan(x: T) -> bool { return f32_bits_is_nan(bitcast<u32>(f32(x))); }\n",
    # 64-bit: T is vec2<u32> (the words of the value), and so is the key.
    U64: "fn key(x: T) -> OrderKey { return x; }\n"
         "fn key_nan_apart(x: T) -> OrderKey { return x; }\n"
         "fn from_key(k: OrderKey) -> T { return k; }\n"
         "fn is_nan(x: T) -> bool { return false; }\n",
    I64: "fn key(x: T) -> OrderKey { return order_key_i64(x); }\n"
         "fn key_nan_apart(x: T) -> OrderKey { return key(x); }\n"
         "fn from_key(k: OrderKey) -> T { return from_order_key_i64(k); }\n"
         "fn is_nan(x: T) -> bool { return false; }\n",
    F64: "fn key(x: T) -> OrderKey { return order_key_f64(x); }\n"
         "fn key_nan_apart(x: T) -> OrderKey { return order_key_f64_nan_apart(x); }\n"
         "fn from_key(k: OrderKey) -> T { return from_order_key_f64(k); }\n"
         "fn is_nan(x: T) -> bool { return f64_bits_is_nan(x); }\n",
}

# Keys of min and max results (kernels/order_key.wgsl, "keys of min and max results"):
# one-to-one, NaN below (min) or above (max) every number, -0.0 just below +0.0.
_EXTREMES = {
    U32: "fn min_key(x: T) -> u32 { return x; }\n"
         "fn from_min_key(k: u32) -> T { return k; }\n",
    I32: "fn min_key(x: T) -> u32 { return key(x); }\n"
         "fn from_min_key(k: u32) -> T { return from_key(k); }\n",
    F32: "fn min_key(x: T) -> u32 { return min_key_f32(bitcast<u32>(x)); }\n"
         "fn from_min_key(k: u32) -> T { return bitcast<f32>(from_min_key_f32(k)); }\n"
         "fn max_key(x: T) -> u32 { return max_key_f32(bitcast<u32>(x)); }\n"
         "fn from_max_key(k: u32) -> T { return bitcast<f32>(from_max_key_f32(k)); }\n",
    F16: "fn min_key(x: T) -> u32 { return min_key_f32(bitcast<u32>(f32(x))); }\n"
         "fn from_min_key(k: u32) -> T { return f16(bitcast<f32>(from_min_key_f32(k))); }\n"
         "fn max_key(x: T) -> u32 { return max_key_f32(bitcast<u32>(f32(x))); }\n"
         "fn from_max_key(k: u32) -> T { return f16(bitcast<f32>(from_max_key_f32(k))); }\n",
    U64: "fn min_key(x: T) -> OrderKey { return x; }\n"
         "fn from_min_key(k: OrderKey) -> T { return k; }\n",
    I64: "fn min_key(x: T) -> OrderKey { return key(x); }\n"
         "fn from_min_key(k: OrderKey) -> T { return from_key(k); }\n",
    # 2^52 - 1 NaNs of one sign, and its negative modulo 2^64 (add64 of kernels/int64.wgsl).
    F64: "const F64_NAN_KEYS = vec2<u32>(0xffffffffu, 0x000fffffu);\n"
         "const F64_NAN_KEYS_NEGATED = vec2<u32>(1u, 0xfff00000u);\n"
         "fn min_key(x: T) -> OrderKey { return add64(order_key_f64_total(x), F64_NAN_KEYS); }\n"
         "fn from_min_key(k: OrderKey) -> T { return from_order_key_f64(add64(k, F64_NAN_KEYS_NEGATED)); }\n"
         "fn max_key(x: T) -> OrderKey { return add64(order_key_f64_total(x), F64_NAN_KEYS_NEGATED); }\n"
         "fn from_max_key(k: OrderKey) -> T { return from_order_key_f64(add64(k, F64_NAN_KEYS)); }\n",
}
for _dt in (U32, I32, U64, I64):  # integers: the key itself, min and max alike
    _EXTREMES[_dt] += _EXTREMES[_dt].replace("min_key", "max_key")

_WINNERS64 = (
    "fn key_for_min(x: T) -> OrderKey { return select(key(x), vec2<u32>(0u, 0u), is_nan(x)); }\n"
    "fn key_for_max(x: T) -> OrderKey { return select(key(x), vec2<u32>(0xffffffffu, 0xffffffffu), is_nan(x)); }\n"
)

_WINNERS = (
    "fn key_for_min(x: T) -> u32 { return select(key(x), 0u, is_nan(x)); }\n"
    "fn key_for_max(x: T) -> u32 { return select(key(x), 0xffffffffu, is_nan(x)); }\n"
)


def preamble(dt) -> str:
    """WGSL (after `alias T`; for a 64-bit dtype T is vec2<u32>) defining, for elements of
    dtype `dt`: `alias OrderKey` (u32, or vec2<u32> for 64-bit dtypes: compare those with
    key64_less), `key(x: T) -> OrderKey`, `from_key(k: OrderKey) -> T`, `is_nan(x: T) -> bool`,
    `key_nan_apart(x: T)` (key(x) for every non-NaN x; NaNs beyond both infinities, for
    hot loops that reject NaN themselves),
    `key_for_min(x)` / `key_for_max(x)` (a NaN takes the winning key), `min_key(x)` /
    `max_key(x)` and their inverses `from_min_key` / `from_max_key` (one-to-one keys for
    min/max results: an input's own bits come back), and the bit-level functions of
    kernels/order_key.wgsl (order_key_f32, from_order_key_f32, ...); for 64-bit dtypes
    also kernels/int64.wgsl (add64, mul64), which the 64-bit keys use."""
    dt = np.dtype(dt)
    if dt not in _TYPED:
        raise TypeError(f"no order key for {dt}")
    wide = dt in WIDE
    alias = "alias OrderKey = vec2<u32>;\n" if wide else "alias OrderKey = u32;\n"
    files = ("int64", "order_key") if wide else "order_key"
    return kernel_source(files) + "\n" + alias + _TYPED[dt] + _EXTREMES[dt] + (_WINNERS64 if wide else _WINNERS)


NAN_KEY = 0xFFC00000
NAN_KEY64 = 0xFFF8000000000000


def host_keys(x) -> np.ndarray:
    """The order keys of `x` as numpy uint32 (uint32, int32, float32, float16) or uint64
    (uint64, int64, float64): the numpy twin of `key()` in kernels, same rules (±0 one
    key, every NaN one key above +inf)."""
    x = np.asarray(x)
    if x.dtype == U32 or x.dtype == U64:
        return x.copy()
    if x.dtype == I32:
        return x.view(np.uint32) ^ np.uint32(0x80000000)
    if x.dtype == I64:
        return x.view(np.uint64) ^ np.uint64(1 << 63)
    if x.dtype == F64:
        bits = x.view(np.uint64)
        bits = np.where(bits == np.uint64(1 << 63), np.uint64(0), bits)
        keys = np.where(bits >> np.uint64(63) == 1, ~bits, bits | np.uint64(1 << 63)).astype(np.uint64)
        return np.where(np.isnan(x), np.uint64(NAN_KEY64), keys).astype(np.uint64)
    if x.dtype == F16:
        x = x.astype(np.float32)
    if x.dtype != F32:
        raise TypeError(f"no order key for {x.dtype}")
    bits = x.view(np.uint32)
    bits = np.where(bits == 0x80000000, np.uint32(0), bits)
    keys = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(0x80000000)).astype(np.uint32)
    return np.where(np.isnan(x), np.uint32(NAN_KEY), keys).astype(np.uint32)


def host_values(keys, dt) -> np.ndarray:
    """The inverse of host_keys: values of dtype `dt` (zeros as +0.0, NaNs as 0x7fc00000)."""
    dt = np.dtype(dt)
    if dt in WIDE:
        keys = np.asarray(keys, np.uint64)
        if dt == U64:
            return keys.copy()
        if dt == I64:
            return (keys ^ np.uint64(1 << 63)).view(np.int64)
        top = np.uint64(1 << 63)
        return np.where(keys >> np.uint64(63) == 1, keys ^ top, ~keys).astype(np.uint64).view(np.float64)
    keys = np.asarray(keys, np.uint32)
    if dt == U32:
        return keys.copy()
    if dt == I32:
        return (keys ^ np.uint32(0x80000000)).view(np.int32)
    bits = np.where(keys >> 31 == 1, keys ^ np.uint32(0x80000000), ~keys).astype(np.uint32)
    values = bits.view(np.float32)
    return values.astype(dt) if dt == F16 else values


def host_min_max(x, op: str, axis=None):
    """The numpy twin of wgprim's min or max (`op`) of `x`: numpy's value, and where numpy
    leaves the choice open (±0, several NaNs) the input bits that min_key / max_key pick
    (kernels/order_key.wgsl): of ±0 a min gives -0.0 and a max +0.0; of several NaNs a min
    gives the positive one with the smallest payload (else the negative one with the largest),
    a max the negative one with the smallest payload (else the positive one with the largest)."""
    x = np.asarray(x)
    if op not in ("min", "max"):
        raise ValueError(f"op must be 'min' or 'max', not {op!r}")
    if x.dtype.kind != "f":
        return getattr(x, op)(axis=axis)
    wide = x.dtype.itemsize == 8
    word = np.uint64 if wide else np.uint32
    sign, nans = (word(1 << 63), word(2**52 - 1)) if wide else (word(1 << 31), word(2**23 - 1))
    bits = (x.astype(np.float32) if x.dtype == F16 else x).view(word)
    total = np.where(bits & sign, ~bits, bits | sign).astype(word)
    with np.errstate(over="ignore"):
        keys = (total + nans) if op == "min" else (total - nans)
    pick = keys.argmin(axis=axis) if op == "min" else keys.argmax(axis=axis)
    if axis is None:
        return x.reshape(-1)[pick]
    return np.take_along_axis(x, np.expand_dims(pick, axis), axis).squeeze(axis)
