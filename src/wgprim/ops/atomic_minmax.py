"""Global min/max by atomics: the alternative to the tree reduction (ops/reduce.py).

Two dispatches (kernels/atomic_minmax.wgsl): every workgroup reduces its share to one
order-preserving u32 key for the min and one for the max, then does one atomicMin and
one atomicMax on two global words; the next dispatch decodes them. Both extremes come
out of the one pass over the data.

Keys: u32 as is; i32 with the sign bit flipped; f32 with the sign bit flipped for
positive values and every bit flipped for negative ones (the radix-sort transform), so
-0.0 < +0.0. NaN propagates as in numpy: it takes key 0 for the min and 0xffffffff for
the max, which decode back to NaNs.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.ops.common import as_input, chunks
from wgprim.program import Program, get_pipeline

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
WG = 256
MAX_GROUPS = 1024  # one atomic pair per workgroup: a few waves' worth, then grid-stride

_KEYS = {
    U32: """alias T = u32;
fn key_min(x: T) -> u32 { return x; }
fn key_max(x: T) -> u32 { return x; }
fn value_of(k: u32) -> T { return k; }
""",
    I32: """alias T = i32;
fn key_min(x: T) -> u32 { return bitcast<u32>(x) ^ 0x80000000u; }
fn key_max(x: T) -> u32 { return bitcast<u32>(x) ^ 0x80000000u; }
fn value_of(k: u32) -> T { return bitcast<i32>(k ^ 0x80000000u); }
""",
    F32: """alias T = f32;
fn is_nan_bits(b: u32) -> bool { return (b & 0x7fffffffu) > 0x7f800000u; }
fn order_key(b: u32) -> u32 { return select(b ^ 0x80000000u, ~b, (b >> 31u) == 1u); }
fn key_min(x: T) -> u32 { let b = bitcast<u32>(x); return select(order_key(b), 0u, is_nan_bits(b)); }
fn key_max(x: T) -> u32 { let b = bitcast<u32>(x); return select(order_key(b), 0xffffffffu, is_nan_bits(b)); }
fn value_of(k: u32) -> T { return bitcast<f32>(select(~k, k ^ 0x80000000u, (k >> 31u) == 1u)); }
""",
}


def _run(arr: Array, swap: bool) -> Array:
    """Record and run accumulate + decode; returns an Array of 2 values (first: the min,
    or the max with swap)."""
    dev = arr.device
    n = arr.size
    if n == 0:
        raise ValueError("min/max of an empty array is undefined (numpy raises too)")
    preamble = _KEYS[arr.dtype]
    program = Program(dev, label="atomic min/max")
    keys = asarray(np.array([0xFFFFFFFF, 0], np.uint32), device=dev)  # identities of min, max
    out = empty((2,), arr.dtype, dev)
    accumulate = get_pipeline(dev, "atomic_minmax", preamble, "minmax_accumulate", {"WG": WG})
    decode = get_pipeline(dev, "atomic_minmax", preamble, "minmax_decode", {"WG": WG})
    for c in chunks(n, arr.itemsize, WG * 4, dev):  # every chunk adds into the same two keys
        groups = min(MAX_GROUPS, -(-c.count // (WG * 16)))
        program.dispatch("atomic min/max accumulate", accumulate,
                         {0: program.params(c.count, groups, 0), 1: c.view(arr), 2: keys.buffer}, groups)
    program.dispatch("atomic min/max decode", decode,
                     {0: program.params(n, 1, int(swap)), 3: keys.buffer, 4: out.buffer}, 1)
    program.run()
    return out


def atomic_reduce(x, op: str = "min") -> Array:
    """min or max of every element of x (uint32, int32, float32) by global atomics.
    Returns a 0-d Array, like wgprim.min/max; NaN propagates as in numpy."""
    if op not in ("min", "max"):
        raise ValueError(f"atomic_reduce takes op='min' or op='max', not {op!r}")
    arr = as_input(x, (U32, I32, F32))
    out = _run(arr, swap=(op == "max"))
    return Array(out.buffer, out.dtype, (), out.device)


def atomic_min_max(x) -> Array:
    """Both extremes in one pass: an Array [min, max] of x's dtype."""
    return _run(as_input(x, (U32, I32, F32)), swap=False)
