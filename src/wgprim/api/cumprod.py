"""cumulative_prod: the Array API's cumulative product (numpy 2's np.cumulative_prod), the
product twin of api/scan.cumulative_sum, on the same building blocks: the scan of a flat
array (ops/scan.scan_recorder) or along an axis (ops/axis.AxisScanner) by "prod", the
widening of 32-bit integers to 64 bits first (ops/widen.py), and the identity (1) in
front for include_initial (AxisScanner.record_initial).

Integers multiply modulo 2^64 in numpy's default dtype (int32 and uint32 in int64 and
uint64, as numpy), modulo 2^32 with a 32-bit dtype= given: numpy's results exactly.
float32 and float16 multiply in their own dtype in the scan's order (a tree, not
numpy's left-to-right loop): each prefix of k + 1 elements is within k roundings of the
exact product, as numpy's is, but not always numpy's bits. float64 raises TypeError:
WGSL has no float64 arithmetic and wgprim's scans do not emulate a float64 multiply.
"""
from __future__ import annotations

from wgprim.api.scan import cumulative
from wgprim.array import Array


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False) -> Array:
    """The array API's cumulative product: the inclusive prefix product along `axis`
    (optional for 0-d and 1-D input, required beyond), of x's shape, or one longer along
    `axis` with include_initial=True (1 first). The product is in `dtype`: None is numpy's
    default (int32 and uint32 in int64 and uint64, other dtypes their own); other dtype=
    values as for cumulative_sum. Integers exact (wrapping as numpy's); float32 and float16
    within k roundings for a prefix of k + 1 elements; float64 raises TypeError."""
    return cumulative("cumulative_prod", "prod", x, axis, dtype, include_initial)
