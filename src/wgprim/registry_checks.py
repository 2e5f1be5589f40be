"""What the registry's entries must answer (wgprim/registry.py): numpy's results for the
same job (`*_ref`), and the comparisons that accept a result (`exact`, `same_*`, `close_*`:
within wgprim's stated error bound where floats are summed)."""
from __future__ import annotations

import numpy as np

from wgprim.registry_inputs import segment_ids


def exact(got, ref, *inputs) -> bool:
    if isinstance(ref, tuple):
        return len(got) == len(ref) and all(exact(g, r) for g, r in zip(got, ref))
    got, ref = np.asarray(got), np.asarray(ref)
    return got.shape == ref.shape and np.array_equal(got, ref, equal_nan=ref.dtype.kind == "f")


def same_counts(got, ref, *inputs) -> bool:
    return np.array_equal(np.asarray(got).astype(np.int64), np.asarray(ref).astype(np.int64))


def same_set(got, ref, *inputs) -> bool:
    return np.array_equal(np.sort(np.asarray(got)), np.sort(np.asarray(ref)))


def _float(x) -> bool:
    return np.asarray(x).dtype.kind == "f"


def sum_ref(x, axis=None):
    if _float(x):
        return x.astype(np.float64).sum(axis=axis)
    return x.sum(axis=axis, dtype=x.dtype)


def close_sum(got, ref, x, axis=None) -> bool:
    if not _float(x):
        return exact(got, ref)
    from wgprim.ops.reduce import sum_error_bound

    n = x.size if axis is None else x.shape[axis]
    bound = sum_error_bound(n, np.abs(x.astype(np.float64)).sum(axis=axis))
    got = np.asarray(got, np.float64)
    return got.shape == np.shape(ref) and bool(np.all(np.abs(got - ref) <= bound))


def prod_ref(x):
    return x.astype(np.float64).prod() if _float(x) else x.prod(dtype=x.dtype)


def close_prod(got, ref, x) -> bool:
    if not _float(x):
        return exact(got, ref)
    from wgprim.ops.reduce import prod_error_bound

    return abs(float(got) - float(ref)) <= prod_error_bound(x.size) * abs(float(ref))


def cumsum_ref(x):
    return np.cumsum(x, dtype=np.float64) if _float(x) else np.cumsum(x, dtype=x.dtype)


def close_cumsum(got, ref, x, method: str | None = None) -> bool:
    """Within wgprim's stated bound for a float cumsum (of that method, where the bound
    depends on it)."""
    if not _float(x):
        return exact(got, ref)
    from wgprim.ops.scan import cumsum_error_bound

    if np.shape(got) != ref.shape:
        return False
    prefix = np.cumsum(np.abs(x), dtype=np.float64)
    bound = cumsum_error_bound(prefix, method=method)
    error = np.subtract(got, ref, dtype=np.float64)
    return bool(np.all(np.abs(error, out=error) <= bound))


def cumulative_sum_ref(x, include_initial=False):
    """np.cumulative_sum (int32 and uint32 sum in 64 bits); floats in float64, as cumsum_ref."""
    if _float(x):
        return np.cumulative_sum(x, dtype=np.float64, include_initial=include_initial)
    return np.cumulative_sum(x, include_initial=include_initial)


def scan_max_exclusive(x):
    lowest = -np.inf if _float(x) else np.iinfo(x.dtype).min
    return np.concatenate([np.array([lowest], x.dtype), np.maximum.accumulate(x)[:-1]])


def stable_pairs(k, v):
    order = np.argsort(k, kind="stable")
    return k[order], v[order]


def rle(x):
    starts = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]])) if x.size else np.zeros(0, np.int64)
    return x[starts], np.diff(np.concatenate([starts, [x.size]])).astype(np.uint32)


def segment_sort_ref(keys, offsets):
    # One 64-bit key per element, segment above key: a plain sort sorts every segment.
    merged = (segment_ids(offsets).astype(np.uint64) << np.uint64(32)) | keys.astype(np.uint64)
    return (np.sort(merged) & np.uint64(0xFFFFFFFF)).astype(keys.dtype)


def segment_sum_ref(x, offsets):
    off = offsets.astype(np.int64)
    if _float(x):
        prefix = np.concatenate([[0.0], np.cumsum(x.astype(np.float64))])
        return prefix[off[1:]] - prefix[off[:-1]]
    prefix = np.concatenate([[0], np.cumsum(x, dtype=x.dtype)]).astype(x.dtype)
    return prefix[off[1:]] - prefix[off[:-1]]  # wraps modulo 2^32 as wgprim does


def close_segment_sum(got, ref, x, offsets) -> bool:
    if not _float(x):
        return exact(got, ref)
    from wgprim.ops.reduce import sum_error_bound

    off = offsets.astype(np.int64)
    prefix = np.concatenate([[0.0], np.cumsum(np.abs(x.astype(np.float64)))])
    abs_sums = prefix[off[1:]] - prefix[off[:-1]]
    bound = sum_error_bound(int(np.diff(off).max(initial=1)), abs_sums) + 1e-6 * abs_sums
    got = np.asarray(got, np.float64)
    return got.shape == ref.shape and bool(np.all(np.abs(got - ref) <= bound))


def segment_cumsum_ref(x, offsets):
    prefix = np.concatenate([[0], np.cumsum(x, dtype=x.dtype)]).astype(x.dtype)
    starts = np.repeat(prefix[offsets[:-1].astype(np.int64)], np.diff(offsets.astype(np.int64)))
    return prefix[1:] - starts


def topk_ref(k: int):
    """(values, indices) of the k largest along the last axis, largest first, ties by
    lower index (as wgprim.topk promises), without sorting all of x."""
    def ref(x):
        rows = x.reshape(-1, x.shape[-1])
        kth = np.partition(rows, rows.shape[1] - k, axis=1)[:, rows.shape[1] - k, None]  # the k-th largest
        above = rows > kth
        # Of the elements equal to the k-th largest, the lowest indices fill the k.
        tied = rows == kth
        room = k - above.sum(axis=1, keepdims=True)
        chosen = above | (tied & (np.cumsum(tied, axis=1, dtype=np.int32) <= room))
        index = np.nonzero(chosen)[1].reshape(rows.shape[0], k)
        vals = np.take_along_axis(rows, index, axis=1)
        order = np.lexsort((index, -vals), axis=1)
        shape = x.shape[:-1] + (k,)
        return (np.take_along_axis(vals, order, axis=1).reshape(shape),
                np.take_along_axis(index, order, axis=1).astype(np.int64).reshape(shape))
    return ref


def same_topk(got, ref, *inputs) -> bool:
    values, indices = got
    return exact(np.asarray(values), ref[0]) and np.array_equal(np.asarray(indices).astype(np.int64), ref[1])


def _bits(x):
    x = np.asarray(x)
    return x.view(np.uint64 if x.itemsize == 8 else np.uint32)


def same_partition(kth: int):
    """Whether `got` is a partition of x at kth as numpy promises (and wgprim gives bit for
    bit): the element a stable sort puts at kth, none greater before it, none smaller
    after, the input's elements."""
    def same(got, ref, x) -> bool:
        from wgprim.ops.order_key import host_keys

        got = np.asarray(got)
        stable = np.sort(x, kind="stable")
        keys, pivot = host_keys(got), host_keys(stable[kth:kth + 1])[0]
        return (got.shape == x.shape and _bits(got[kth]) == _bits(stable[kth]) and bool(np.all(keys[:kth] <= pivot))
                and bool(np.all(keys[kth + 1:] >= pivot)) and np.array_equal(np.sort(_bits(got)), np.sort(_bits(x))))
    return same


def same_argpartition(got, ref, x) -> bool:
    got = np.asarray(got).astype(np.int64)
    kth = x.size // 2
    return np.array_equal(np.sort(got), np.arange(x.size)) and same_partition(kth)(x[got], None, x)


def kth_ref(x):
    k, order = x.size // 2, np.argsort(x, kind="stable")
    return x[order[k]], order[k]


def same_unique_all(got, ref, *inputs) -> bool:
    return len(got) == len(ref) and all(np.array_equal(np.asarray(g), np.asarray(r).reshape(np.shape(g)),
                                                       equal_nan=np.asarray(r).dtype.kind == "f")
                                        for g, r in zip(got, ref))
