"""cumsum and scan(op) of dask arrays: each chunk scanned by wgprim on its worker's GPU,
then the carries (the running total of the chunks before it) applied on the host; for a
custom `wgprim.Monoid`, which only the GPU can evaluate, each chunk is scanned again with
its carry in front (twice the GPU work, the same graph).

This is the graph of `dask.array.cumreduction` (sequential carries), written out because
empty chunks must pass the carry through unchanged, and for exclusive scans. The carry
chain touches one slice per chunk; the chunk scans and the carry applications run in
parallel across chunks.
"""
from __future__ import annotations

import math
from itertools import product

import numpy as np

from wgprim.dask._chunk import as_dask, normalize_axes, on_gpu, scan_along
from wgprim.ops import operators
from wgprim.ops.operators import Monoid

# The host side of each built-in scan operator: it combines a carry with a chunk's scan.
# np.minimum/np.maximum propagate NaN, as wgprim's min/max; integer arrays wrap as wgprim.
CARRY_OPS = {
    "sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}


def _last(m, axis):
    return m[(slice(None),) * axis + (slice(-1, None),)]


def _next_carry(carry, m, name=None, axis=0):
    """The carry after a chunk: carry op (the chunk's total), unchanged past an empty chunk."""
    return carry if m.shape[axis] == 0 else CARRY_OPS[name](carry, _last(m, axis))


def _apply_carry(carry, m, name=None, axis=0, exclusive=False):
    """The chunk's part of the global scan from its local inclusive scan `m`."""
    if m.shape[axis] == 0:
        return m
    op = CARRY_OPS[name]
    if not exclusive:
        return op(carry, m)
    head = m[(slice(None),) * axis + (slice(None, -1),)]
    return np.concatenate([np.broadcast_to(carry, _last(m, axis).shape), op(carry, head)], axis=axis)


def _along(axis, piece):
    return (slice(None),) * axis + (piece,)


@on_gpu
def _next_carry_gpu(carry, m, op=None, axis=0):
    """_next_carry for a Monoid: scan (carry, the chunk's total) on the GPU, keep the last."""
    if m.shape[axis] == 0:
        return carry
    return _last(scan_along(np.concatenate([carry, _last(m, axis)], axis=axis), op, axis), axis)


@on_gpu
def _apply_carry_gpu(carry, x, op=None, axis=0, exclusive=False):
    """The chunk's part of the global scan for a Monoid: the chunk scanned with its carry in
    front (inclusive: drop the carry; exclusive: drop the chunk's last element instead)."""
    if x.shape[axis] == 0:
        return x
    body = x[_along(axis, slice(None, -1))] if exclusive else x
    out = scan_along(np.concatenate([carry, body], axis=axis), op, axis)
    return out if exclusive else out[_along(axis, slice(1, None))]


def scan(x, op="sum", axis=None, exclusive: bool = False):
    """wgprim.scan over a dask array: inclusive (or exclusive, starting from the identity)
    scan with a built-in operator (sum, prod, min, max, bitwise_and/or/xor) or a
    `wgprim.Monoid` (associative; it need not commute) along `axis` (None: the flattened
    array, as numpy). Returns a lazy dask array of x's dtype."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    x = as_dask(x)
    name, _ = operators.resolve(op, x.dtype, for_scan=True)
    on_host = not isinstance(op, Monoid)  # built-in operators: carries applied by numpy
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = normalize_axes(axis, x.ndim)[0]
    identity = operators.identity_value(op, x.dtype)
    local = x.map_blocks(scan_along, op, axis, dtype=x.dtype, token=f"wgprim-scan-{name}-chunk")

    token = tokenize(local, name, axis, exclusive)
    out, carry = f"wgprim-scan-{name}-{token}", f"wgprim-scan-carry-{token}"
    dsk = {}
    others = [range(n) if a != axis else [0] for a, n in enumerate(x.numblocks)]
    for ind in product(*others):
        shape = tuple(1 if a == axis else x.chunks[a][i] for a, i in enumerate(ind))
        dsk[(carry,) + ind] = (np.full, shape, identity, x.dtype)
        for k in range(x.numblocks[axis]):
            here = ind[:axis] + (k,) + ind[axis + 1:]
            if on_host:
                dsk[(out,) + here] = (_apply_carry, (carry,) + here, (local.name,) + here, name, axis, exclusive)
            else:
                dsk[(out,) + here] = (_apply_carry_gpu, (carry,) + here, (x.name,) + here, op, axis, exclusive)
            if k + 1 < x.numblocks[axis]:
                nxt = ind[:axis] + (k + 1,) + ind[axis + 1:]
                step, how = (_next_carry, name) if on_host else (_next_carry_gpu, op)
                dsk[(carry,) + nxt] = (step, (carry,) + here, (local.name,) + here, how, axis)
    graph = HighLevelGraph.from_collections(out, dsk, dependencies=[local, x])
    return da.Array(graph, out, x.chunks, x.dtype, meta=np.empty((0,) * x.ndim, x.dtype))


def cumsum(x, axis=None):
    """numpy.cumsum (integers wrap modulo 2^32: compare with np.cumsum(x, dtype=x.dtype));
    floats within `cumsum_error_bound`."""
    return scan(x, "sum", axis)


def cumsum_error_bound(x, abs_prefix_sums, axis=None):
    """Worst-case |error| of each element of `wgprim.dask.cumsum(x, axis)` for float32, given
    the running sums of |x|: wgprim's chunk scan (64 roundings) plus one rounding per carry
    step (the chunks before it along the axis) and one applying the carry."""
    x = as_dask(x)
    blocks = x.reshape(-1).numblocks[0] if axis is None else x.numblocks[normalize_axes(axis, x.ndim)[0]]
    depth = 64 + blocks + 1
    return depth * float(np.finfo(np.float32).eps) * np.asarray(abs_prefix_sums, dtype=np.float64)
