"""Global min/max by atomics: the alternative to the tree reduction (ops/reduce.py).

Two dispatches (kernels/atomic_minmax.wgsl): every workgroup reduces its share to one
order-preserving u32 key for the min and one for the max, then does one atomicMin and
one atomicMax on two global words; the next dispatch decodes them. Both extremes come
out of the one pass over the data.

Keys: the min and max keys of ops/order_key.py (the tree reduction's too): one key per
bit pattern, NaN winning, so that the result is one of the input's values bit for bit and
the same as the tree's: of ±0 a min gives -0.0 and a max +0.0; of several NaNs, the one
kernels/order_key.wgsl names. NaN propagates as in numpy.

32-bit dtypes only: WGSL's atomics are 32-bit, so a 64-bit min or max would take an extra
pass over the workgroups' partials, which is what the tree reduction (method="tree") is.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.ops import order_key
from wgprim.ops.common import as_input, chunks
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
WG = 256
MAX_GROUPS = 1024  # one atomic pair per workgroup: a few waves' worth, then grid-stride

WGSL = {U32: "u32", I32: "i32", F32: "f32"}


def record_key_range(program: Program, arr: Array) -> Array:
    """Add the accumulate dispatches to `program`: returns an Array of 2 u32, the smallest
    min key and the largest max key of arr (ops/order_key.py), complete once it has run."""
    dev = arr.device
    if arr.size == 0:
        raise ValueError("min/max of an empty array is undefined (numpy raises too)")
    keys = asarray(np.array([0xFFFFFFFF, 0], np.uint32), device=dev)  # identities of min, max
    accumulate = get_pipeline(dev, "atomic_minmax", key_preamble(arr.dtype), "minmax_accumulate", {"WG": WG})
    for c in chunks(arr.size, arr.itemsize, WG * 4, dev):  # every chunk adds into the same two keys
        groups = min(MAX_GROUPS, -(-c.count // (WG * 16)))
        program.dispatch("atomic min/max accumulate", accumulate,
                         {0: program.params(c.count, groups, 0), 1: c.view(arr), 2: keys.buffer}, groups)
    return keys


def key_preamble(dt: np.dtype) -> str:
    """`alias T` and the order keys of dt (ops/order_key.py): what kernels over keys need."""
    return f"alias T = {WGSL[dt]};\n" + order_key.preamble(dt)


def _run(arr: Array, swap: bool) -> Array:
    """Record and run accumulate + decode; returns an Array of 2 values (first: the min,
    or the max with swap)."""
    dev = arr.device
    program = Program(dev, label="atomic min/max")
    keys = record_key_range(program, arr)
    out = empty((2,), arr.dtype, dev)
    decode = get_pipeline(dev, "atomic_minmax", key_preamble(arr.dtype), "minmax_decode", {"WG": WG})
    program.dispatch("atomic min/max decode", decode,
                     {0: program.params(arr.size, 1, int(swap)), 3: keys.buffer, 4: out.buffer}, 1)
    program.run(stage=out)  # the two values read back in one map (a range probe reads them at once)
    return out


def _atomic_input(x) -> Array:
    if isinstance(x, Array):
        dt = x.dtype
    else:
        dt = getattr(x, "dtype", None)
        dt = np.asarray(x).dtype if dt is None else np.dtype(dt)
    if dt in order_key.WIDE:
        raise TypeError(f"method='atomic' takes uint32, int32 or float32, not {dt}: WGSL's atomics are "
                        f"32-bit; use method='tree' (the default), which takes {dt}")
    return as_input(x, (U32, I32, F32))


def atomic_reduce(x, op: str = "min") -> Array:
    """min or max of every element of x (uint32, int32, float32) by global atomics.
    Returns a 0-d Array, like wgprim.min/max; NaN propagates as in numpy."""
    if op not in ("min", "max"):
        raise ValueError(f"atomic_reduce takes op='min' or op='max', not {op!r}")
    arr = _atomic_input(x)
    out = _run(arr, swap=(op == "max"))
    return out.alias(())


def atomic_min_max(x) -> Array:
    """Both extremes in one pass: an Array [min, max] of x's dtype."""
    return _run(_atomic_input(x), swap=False)


# -- 64-bit values (kernels/atomic_minmax64.wgsl): the extremes a 32-bit word at a time ----
def key_range64(x: Array) -> tuple:
    """(min, max) of a uint64, int64 or float64 Array as numpy scalars of its dtype (NaN
    propagates as numpy's min/max), from two accumulate dispatches of 32-bit atomics: the
    extreme high words of the keys, then the extreme low words among the keys with those."""
    dev, dt = x.device, x.dtype
    if x.size == 0:
        raise ValueError("min/max of an empty array is undefined (numpy raises too)")
    preamble = "alias T = vec2<u32>;\n" + order_key.preamble(dt)
    program = Program(dev, label="atomic min/max 64-bit")
    keys = asarray(np.array([0xFFFFFFFF, 0, 0xFFFFFFFF, 0], np.uint32), device=dev)
    high = program.temp(16)
    parts = chunks(x.size, 8, WG * 2, dev)
    for entry in ("minmax64_high", "minmax64_low"):
        pipeline = get_pipeline(dev, "atomic_minmax64", preamble, entry, {"WG": WG})
        if entry == "minmax64_low":
            program.copy(keys.buffer, 0, high, 0, 8)  # the high words, complete: read in the next dispatch
        for c in parts:
            groups = min(MAX_GROUPS, -(-c.count // (WG * 8)))
            bindings = {0: program.params(c.count, groups), 1: c.view(x), 2: keys.buffer}
            if entry == "minmax64_low":
                bindings[3] = high
            program.dispatch(f"atomic min/max 64-bit {entry[9:]}", pipeline, bindings, groups)
    words = program.run(reads=[(keys.buffer, 0, 16)])[0].view(np.uint32).astype(np.uint64)  # read in the same submit
    found = np.array([words[0] << np.uint64(32) | words[2], words[1] << np.uint64(32) | words[3]], np.uint64)
    lowest, highest = order_key.host_values(found, dt)
    return lowest, highest
