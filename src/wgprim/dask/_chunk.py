"""What every wgprim.dask function shares: input checks on the caller, and the one place
where a chunk is reduced or scanned along some of its axes with wgprim.

Functions here run inside dask tasks (on a worker, or a thread of the local scheduler):
they take and return numpy arrays; wgprim uploads a chunk, runs on the worker's GPU and
returns the (small) result.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

import wgprim
from wgprim import transfer
from wgprim.array import check_dtype
from wgprim.ops import operators

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
DTYPES = (U32, I32, F32)
AxisError = getattr(np, "exceptions", np).AxisError  # numpy < 1.25 has it at the top


_GPU = threading.RLock()


def on_gpu(task):
    """A task function that calls wgprim: one at a time per process. The process's one
    device runs one call at a time anyway, and dask's threaded scheduler (or a worker with
    several threads) must not interleave calls on it."""

    @functools.wraps(task)
    def run(*args, **kwargs):
        with _GPU:
            return task(*args, **kwargs)

    return run


# Chunks at least this big are uploaded into a buffer kept for the next chunk of the same
# size: a chunk task then costs one queue write, not a new buffer (allocation + zeroing).
REUSE_BYTES = 1 << 20


def upload(x: np.ndarray) -> "wgprim.Array":
    """x on this process's GPU. Call only inside an `on_gpu` task and use the Array only
    there: a big chunk's buffer is reused by the next chunk of the same size and dtype."""
    x = np.ascontiguousarray(x)
    if x.nbytes < REUSE_BYTES or x.dtype not in DTYPES:
        return wgprim.asarray(x)
    device = wgprim.get_device()
    kept = device.cache("wgprim.dask uploads")
    key = (x.dtype.str, x.size)
    if key not in kept:
        kept.clear()  # one kept buffer per process: chunks of one array share a size
        kept[key] = wgprim.empty((x.size,), x.dtype, device)
    arr = kept[key]
    transfer.write(device, arr.buffer, 0, x)
    return arr.reshape(x.shape)


def as_dask(x, allowed=DTYPES):
    """`x` as a dask array of a dtype wgprim takes; TypeError (wgprim's message) otherwise.

    Checked on the caller so that a wrong dtype fails before any task runs."""
    import dask.array as da

    if not isinstance(x, da.Array):
        x = da.asarray(x)
    check_dtype(x.dtype, allowed=allowed)
    return x


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    """axis=None -> every axis; an int or tuple -> sorted non-negative axes (numpy's errors)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(out))


def _rows(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """x with `axes` moved last and flattened: (rows, reduced length), and the kept shape."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim)) if axes else x
    kept_shape = tuple(x.shape[a] for a in kept)
    length = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = np.ascontiguousarray(moved).reshape(int(np.prod(kept_shape, dtype=np.int64)), length)
    return rows, kept_shape


def _keepdims_shape(shape, axes) -> tuple[int, ...]:
    return tuple(1 if a in axes else s for a, s in enumerate(shape))


def reduce_along(x: np.ndarray, op, axes: tuple[int, ...]) -> np.ndarray:
    """wgprim.reduce(x, op) along `axes` with keepdims=True (numpy in, numpy out): one
    wgprim call, with its own axis= for one axis; several axes are moved last and
    flattened on the host first."""
    out_shape = _keepdims_shape(x.shape, axes)
    result_dt = operators.result_dtype(op, x.dtype)
    if 0 in out_shape:
        return np.empty(out_shape, result_dt)
    if len(axes) == x.ndim:
        return np.asarray(wgprim.reduce(upload(x), op).numpy()).reshape(out_shape)
    if len(axes) == 1:
        return np.asarray(wgprim.reduce(upload(x), op, axis=axes[0], keepdims=True).numpy())
    rows, kept_shape = _rows(x, axes)
    flat = np.asarray(wgprim.reduce(upload(rows), op, axis=1).numpy())
    # rows are in the kept axes' order; put the reduced (size-1) axes back
    return flat.reshape(kept_shape + (1,) * len(axes)).transpose(_inverse_order(x.ndim, axes)).reshape(out_shape)


@on_gpu
def scan_along(x: np.ndarray, op, axis: int) -> np.ndarray:
    """Inclusive wgprim.scan(x, op) along one axis (numpy in, numpy out, x's shape)."""
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    return wgprim.scan(upload(x), op, axis=axis if x.ndim > 1 else None).numpy()


def _inverse_order(ndim: int, axes: tuple[int, ...]) -> list[int]:
    """The transpose that undoes moving `axes` to the end."""
    order = [a for a in range(ndim) if a not in axes] + list(axes)
    return list(np.argsort(order))


def tree_merge(parts: list, merge, split_every: int = 8):
    """Combine dask.delayed `parts` with `merge(*group)` in a tree of fan-in `split_every`
    (a single task never holds more than `split_every` partial results)."""
    from dask import delayed

    if split_every < 2:
        raise ValueError("split_every must be at least 2")
    while len(parts) > 1:
        parts = [delayed(merge, pure=True)(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def blocks_1d(x) -> list:
    """The chunks of a dask array as a flat list of dask.delayed (any ndim, block order)."""
    return list(x.to_delayed().ravel())
