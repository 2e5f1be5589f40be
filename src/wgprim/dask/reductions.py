"""sum, prod, min, max, argmin, argmax and reduce(op) of dask arrays.

Each chunk is reduced by wgprim on its worker's GPU; the partial results (one per chunk,
tiny) are combined by `dask.array.reduction`'s tree, again with wgprim for the operator
itself (so a custom `wgprim.Monoid` works), or on the host for argmin/argmax, whose
partials are (value, global index) records.
"""
from __future__ import annotations

import builtins
import math
from functools import partial

import numpy as np

import wgprim
from wgprim.dask._chunk import (_inverse_order, _keepdims_shape, _rows, as_dask, normalize_axes, on_gpu,
                                reduce_along)
from wgprim.ops import operators
from wgprim.ops.reduce import sum_error_bound as _chunk_sum_bound

NO_INDEX = np.iinfo(np.int64).max  # an empty chunk's argmin/argmax: loses every tie


@on_gpu
def _reduce_chunk(x, axis=None, keepdims=True, op="sum", identity=None, **_):
    """One chunk (or the concatenated partials) reduced along `axis` (a tuple, from dask)."""
    if x.size == 0:  # an empty chunk contributes the identity (min: +inf / the largest int)
        out = np.full(_keepdims_shape(x.shape, axis), identity, dtype=x.dtype)
    else:
        out = reduce_along(x, op, axis)
    return out if keepdims else out.reshape([s for a, s in enumerate(out.shape) if a not in axis])


def reduce(x, op="sum", axis=None, keepdims: bool = False, split_every=None):
    """wgprim.reduce over a dask array: `op` a built-in name (sum, prod, min, max, argmin,
    argmax, bitwise_and, bitwise_or, bitwise_xor) or a `wgprim.Monoid`; `axis` None, an int
    or (not for argmin/argmax) a tuple. Returns a lazy dask array (0-d for axis=None)."""
    import dask.array as da

    x = as_dask(x)
    name, _ = operators.resolve(op, x.dtype)  # unknown operator / dtype: raised here
    axes = normalize_axes(axis, x.ndim)
    if name in operators.ARG_OPS:
        if axis is not None and np.ndim(axis) != 0:
            raise TypeError(f"{name} takes axis=None or an int, as numpy")
        return _arg_reduce(x, name, None if axis is None else axes[0], keepdims, split_every)
    if name in ("min", "max") and any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"{name} of an empty array is undefined (numpy raises too)")
    chunk = partial(_reduce_chunk, op=op, identity=operators.identity_value(op, x.dtype))
    out_ndim = x.ndim if keepdims else x.ndim - len(axes)
    return da.reduction(
        x, chunk, partial(chunk), combine=chunk, axis=axes, keepdims=keepdims, dtype=x.dtype,
        split_every=split_every, concatenate=True, meta=np.empty((0,) * out_ndim, x.dtype),
        name=f"wgprim-{name}",
    )


def sum(x, axis=None, keepdims: bool = False, split_every=None):
    """Sum (integers wrap modulo 2^32; floats within `sum_error_bound`)."""
    return reduce(x, "sum", axis, keepdims, split_every)


def prod(x, axis=None, keepdims: bool = False, split_every=None):
    return reduce(x, "prod", axis, keepdims, split_every)


def min(x, axis=None, keepdims: bool = False, split_every=None):
    """Smallest element (NaN if any, as numpy)."""
    return reduce(x, "min", axis, keepdims, split_every)


def max(x, axis=None, keepdims: bool = False, split_every=None):
    """Largest element (NaN if any, as numpy)."""
    return reduce(x, "max", axis, keepdims, split_every)


def argmin(x, axis=None, keepdims: bool = False, split_every=None):
    """Index (int64, into the flattened array for axis=None) of the first minimum; the first
    NaN's index if there is one, as numpy."""
    return reduce(x, "argmin", axis, keepdims, split_every)


def argmax(x, axis=None, keepdims: bool = False, split_every=None):
    return reduce(x, "argmax", axis, keepdims, split_every)


# --- argmin / argmax: per chunk (value, global index) records, combined on the host ---

def _records_dtype(dt) -> np.dtype:
    return np.dtype([("v", dt), ("i", np.int64)])


def _loser(name: str, dt: np.dtype):
    """A value no real element loses to (with index NO_INDEX): stands for an empty chunk."""
    big = np.inf if dt.kind == "f" else np.iinfo(dt).max
    small = -np.inf if dt.kind == "f" else np.iinfo(dt).min
    return big if name == "argmin" else small


@on_gpu
def _arg_chunk(x, op=None, axis=None, shape=None, block_info=None):
    """(value, global index) of the chunk's first minimum/maximum, with keepdims shape."""
    start = [s for s, _ in block_info[0]["array-location"]]
    axes = tuple(range(x.ndim)) if axis is None else (axis,)
    out = np.empty(_keepdims_shape(x.shape, axes), _records_dtype(x.dtype))
    if x.size == 0 or out.size == 0:
        out["v"], out["i"] = _loser(op, x.dtype), NO_INDEX
        return out
    if axis is None:
        local = np.unravel_index(int(wgprim.reduce(x, op).item()), x.shape)
        out["v"] = x[local]
        out["i"] = np.ravel_multi_index(tuple(int(l) + s for l, s in zip(local, start)), shape)
    else:
        local = reduce_along(x, op, axes).astype(np.int64)
        out["v"] = np.take_along_axis(x, local, axis)
        out["i"] = local + start[axis]
    return out


def _arg_pick(r, axis=None, keepdims=True, name=None, computing_meta=False, **_):
    """The winning record along `axis`: a NaN first, else the min (max) value, then the
    smallest index: numpy's first-occurrence rule across chunks."""
    if computing_meta:
        return r
    rows, kept_shape = _rows(r, axis)
    v = rows["v"].astype(np.float64)
    nan = np.isnan(v)
    key = np.where(nan, 0.0, v if name == "argmin" else -v)
    first = np.lexsort((rows["i"], key, ~nan), axis=-1)[:, 0]
    won = rows[np.arange(len(rows)), first]
    won = won.reshape(kept_shape + (1,) * len(axis)).transpose(_inverse_order(r.ndim, axis))
    return won if keepdims else won.reshape(kept_shape)


def _arg_result(r, axis=None, keepdims=True, name=None, computing_meta=False, **_):
    if computing_meta:
        return np.empty((0,) * r.ndim, np.int64)
    return _arg_pick(r, axis, keepdims, name)["i"]


def _identity(r, axis=None, keepdims=True, **_):
    return r


def _arg_reduce(x, name: str, axis, keepdims: bool, split_every):
    import dask.array as da

    if any(x.shape[a] == 0 for a in (range(x.ndim) if axis is None else (axis,))):
        raise ValueError(f"attempt to get {name} of an empty sequence")
    axes = tuple(range(x.ndim)) if axis is None else (axis,)
    chunks = tuple(tuple(1 for _ in c) if a in axes else c for a, c in enumerate(x.chunks))
    rec = _records_dtype(x.dtype)
    records = x.map_blocks(_arg_chunk, op=name, axis=axis, shape=x.shape, dtype=rec, chunks=chunks,
                           meta=np.empty((0,) * x.ndim, rec), token=f"wgprim-{name}-chunk")
    out_ndim = x.ndim if keepdims else x.ndim - len(axes)
    out = da.reduction(
        records, _identity, partial(_arg_result, name=name), combine=partial(_arg_pick, name=name),
        axis=axes, keepdims=keepdims, dtype=rec, split_every=split_every, concatenate=True,
        meta=np.empty((0,) * x.ndim, rec), name=f"wgprim-{name}",
    )
    out._meta = np.empty((0,) * out_ndim, np.int64)  # the partials are records, the result indices
    return out


def sum_error_bound(x, abs_sum, axis=None):
    """Worst-case |error| of `wgprim.dask.sum(x, axis)` for float32, given sum(|x|) (per
    output element for axis sums): each chunk within wgprim's own bound, plus one wgprim sum
    of the partials per level of dask's tree (at most log2(number of chunks) levels)."""
    x = as_dask(x)
    axes = normalize_axes(axis, x.ndim)
    eps = float(np.finfo(np.float32).eps)
    largest = int(np.prod([builtins.max(x.chunks[a], default=0) for a in axes], dtype=np.int64))
    blocks = int(np.prod([x.numblocks[a] for a in axes], dtype=np.int64))
    levels = math.ceil(math.log2(blocks)) if blocks > 1 else 0
    depth = _chunk_sum_bound(largest, 1.0) / eps + levels * _chunk_sum_bound(blocks, 1.0) / eps
    return depth * eps * np.asarray(abs_sum, dtype=np.float64)
