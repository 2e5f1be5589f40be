"""Order keys: values -> u32 whose unsigned order is numpy's order of the values.

The rules live once, in kernels/order_key.wgsl (read its header): integers keep their
order, -0.0 and +0.0 share one key, every NaN shares one key above +inf. `preamble(dt)`
puts that file in front of a kernel with the typed names kernels use; `host_keys` is the
same transform in numpy (for host-side decisions and for tests).

A NaN-propagating min or max (numpy's min, max, argmin, argmax) additionally lets NaN
win: `key_for_min(x)` is 0 for a NaN, `key_for_max(x)` all ones; both decode (from_key)
back to a NaN.
"""
from __future__ import annotations

import numpy as np

from wgprim.program import kernel_source

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))

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
}

_WINNERS = (
    "fn key_for_min(x: T) -> u32 { return select(key(x), 0u, is_nan(x)); }\n"
    "fn key_for_max(x: T) -> u32 { return select(key(x), 0xffffffffu, is_nan(x)); }\n"
)


def preamble(dt) -> str:
    """WGSL (after `alias T`) defining, for elements of dtype `dt`:
    `key(x: T) -> u32`, `from_key(k: u32) -> T`, `is_nan(x: T) -> bool`,
    `key_nan_apart(x: T)` (key(x) for every non-NaN x; NaNs beyond both infinities, for
    hot loops that reject NaN themselves),
    `key_for_min(x)` / `key_for_max(x)` (a NaN takes the winning key), and the bit-level
    functions of kernels/order_key.wgsl (order_key_f32, from_order_key_f32, ...)."""
    dt = np.dtype(dt)
    if dt not in _TYPED:
        raise TypeError(f"no order key for {dt}")
    return kernel_source("order_key") + "\n" + _TYPED[dt] + _WINNERS


NAN_KEY = 0xFFC00000


def host_keys(x) -> np.ndarray:
    """The order keys of `x` (uint32, int32, float32 or float16) as numpy uint32: the
    numpy twin of `key()` in kernels, same rules (±0 one key, every NaN one key above
    +inf)."""
    x = np.asarray(x)
    if x.dtype == U32:
        return x.copy()
    if x.dtype == I32:
        return x.view(np.uint32) ^ np.uint32(0x80000000)
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
    keys = np.asarray(keys, np.uint32)
    dt = np.dtype(dt)
    if dt == U32:
        return keys.copy()
    if dt == I32:
        return (keys ^ np.uint32(0x80000000)).view(np.int32)
    bits = np.where(keys >> 31 == 1, keys ^ np.uint32(0x80000000), ~keys).astype(np.uint32)
    values = bits.view(np.float32)
    return values.astype(dt) if dt == F16 else values
