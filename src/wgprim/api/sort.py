"""Sorting's front doors: sort, argsort, sort_pairs and SortPlan for uint32, int32 and
float32 keys, of 1-D arrays or along an axis.

Semantics (those of numpy's stable sort, `np.sort` / `np.argsort(kind="stable")`):
- NaN sorts after every number (last ascending, first descending).
- -0.0 and +0.0 are equal keys: argsort and sort_pairs keep them in input order. Sorted
  float keys come back with every zero as +0.0 and every NaN as the quiet NaN 0x7fc00000
  (equal to np.sort's result under ==, NaNs in the same places).
- descending: largest first, equal keys still in input order (so it is not the reverse
  of the ascending result).
- n-D input is sorted along `axis` (default -1; None flattens): rows of the last axis are
  segments of equal length (ops/segmented.py). Other key dtypes raise TypeError.
- argsort returns uint32 indices.

Methods: "radix" (default, ops/radix_sort.py, stable, any length the device's buffers hold)
and "bitonic" (ops/bitonic.py, the sorting network; keys only, not stable — equal keys
are indistinguishable in `sort`'s output, so that does not show).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.array import Array, empty
from wgprim.device import check_current, get_device
from wgprim.ops import numpy_options
from wgprim.ops.axis import move_axis, normalize_axis
from wgprim.ops.bitonic import bitonic_sorter
from wgprim.ops.common import as_input, check_count
from wgprim.ops.radix_sort import ALL_DIGITS, radix_sorter
from wgprim.ops.sorting import record_sort, sort_key
from wgprim.ops.segmented import SORT_KEY_DTYPES, VALUES_GATHER, VALUES_NONE, VALUES_POSITION, sort_rows
from wgprim.program import Plan, Program, run_recorded

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
KEY_DTYPES = (U32, I32, F32)
VALUE_DTYPES = (U32, I32, F32)
METHODS = ("radix", "bitonic")


def _one_dimensional(x, what: str, allowed) -> Array:
    arr = as_input(x, allowed)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape} (use .ravel() to sort every element)")
    return arr


def sort(x, *, axis=-1, descending: bool = False, stable: bool = True, method: str = "radix",
         kind=None, order=None) -> Array:
    """A sorted copy of the 1-D `x` (uint32, int32 or float32), as numpy's np.sort.
    n-D: along `axis` (the last; None flattens), ops/segmented.py."""
    numpy_options.sort_options("sort", kind, order)
    if axis is None or getattr(x, "ndim", np.ndim(x)) > 1:
        return sort_axis("keys", x, axis, descending, method)
    if method not in METHODS:
        raise ValueError(f"unknown sort method {method!r}; methods: {', '.join(METHODS)}")
    keys = _one_dimensional(x, "sort input", KEY_DTYPES)
    out = empty((keys.size,), keys.dtype, keys.device)
    if keys.size == 0:
        return out
    descending = bool(descending)
    if method == "bitonic":
        sorter = bitonic_sorter(keys.device, keys.dtype, descending)
        run_recorded(keys.device, (sorter,), (keys, out), sorter.record, "bitonic sort")
    else:
        run_recorded(keys.device, sort_key(keys.device, keys, descending), (keys, out),
                     lambda p, k, o: record_sort(p, k, o, descending=descending), "radix sort")
    return out


def sort_pairs(keys, values, *, axis=-1, descending: bool = False) -> tuple[Array, Array]:
    """(sorted keys, values in the same order): a stable sort of `values` by `keys`.
    Values may be any 32-bit dtype (uint32, int32, float32), e.g. an index array.
    n-D: along `axis` (the last; None flattens), ops/segmented.py."""
    if axis is None or getattr(keys, "ndim", np.ndim(keys)) > 1:
        return sort_axis("pairs", keys, axis, descending, "radix", values)
    k = _one_dimensional(keys, "keys", KEY_DTYPES)
    v = _one_dimensional(values, "values", VALUE_DTYPES)
    if v.size != k.size:
        raise ValueError(f"keys and values differ in length: {k.size} and {v.size}")
    keys_out = empty((k.size,), k.dtype, k.device)
    vals_out = empty((v.size,), v.dtype, k.device)
    if k.size == 0:
        return keys_out, vals_out
    descending = bool(descending)
    run_recorded(k.device, (*sort_key(k.device, k, descending), "pairs"), (k, v, keys_out, vals_out),
                 lambda p, k, v, ko, vo: record_sort(p, k, ko, v, vo, descending=descending), "sort pairs")
    return keys_out, vals_out


def argsort(x, *, axis=-1, descending: bool = False, stable: bool = True, kind=None, order=None) -> Array:
    """uint32 indices that sort the 1-D `x` stably, as np.argsort(x, kind="stable").
    n-D: along `axis` (the last; None flattens), ops/segmented.py."""
    numpy_options.sort_options("argsort", kind, order)
    if axis is None or getattr(x, "ndim", np.ndim(x)) > 1:
        return sort_axis("argsort", x, axis, descending, "radix")
    k = _one_dimensional(x, "argsort input", KEY_DTYPES)
    return argsort_with_keys(k, bool(descending))[0]


def argsort_with_keys(k: Array, descending: bool = False, keep_keys: bool = False,
                      kept: bool = True) -> tuple[Array, Array | None]:
    """(indices, sorted keys or None) of the 1-D Array k: the keys come out of the same
    passes (the sort moves them along with the indices), kept when asked for. kept=False:
    not a kept recording (a step of a larger call: run_recorded)."""
    dev = k.device
    idx = empty((k.size,), U32, dev)
    if k.size == 0:
        return idx, (empty((0,), k.dtype, dev) if keep_keys else None)
    if keep_keys:
        keys_out = empty((k.size,), k.dtype, dev)
        run_recorded(dev, (*sort_key(dev, k, descending), "argsort"), (k, keys_out, idx),
                     lambda p, k, ko, i: record_sort(p, k, ko, None, i, index_values=True, descending=descending),
                     "argsort", keep=kept)
        return idx, keys_out

    def record(p, k, i):  # the sorted keys in a temporary of the recording
        keys_out = Array(p.temp(k.nbytes), k.dtype, (k.size,), dev)
        record_sort(p, k, keys_out, None, i, index_values=True, descending=descending)

    run_recorded(dev, (*sort_key(dev, k, descending), "argsort"), (k, idx), record, "argsort", keep=kept)
    return idx, None


def sorted_copy(k: Array, kept: bool = True) -> Array:
    """The ascending sort of the 1-D Array k (kept=False: see argsort_with_keys)."""
    out = empty((k.size,), k.dtype, k.device)
    if k.size:
        run_recorded(k.device, sort_key(k.device, k, False), (k, out), lambda p, k, o: record_sort(p, k, o),
                     "radix sort", keep=kept)
    return out


class SortPlan:
    """A radix sort built once for (n, dtype, what, descending) and run many times with no
    new pipelines or buffers (a `program.Plan`: steps re-recorded only when the input
    buffers, or with `skip_digits` the passes, change).

    what: "keys" (call plan(x) -> sorted keys), "pairs" (plan(keys, values) -> (keys,
    values)) or "argsort" (plan(x) -> indices). Results are the plan's own Arrays for the
    calling thread, overwritten by that thread's next run: each thread that runs the plan
    gets its own temporaries and results, so a plan is safe to share between threads.
    `skip_digits=True` probes the keys on every run (one sync with the GPU) and skips the
    passes whose digit is equal in every key; the default runs all four passes without
    waiting for anything. `profile=True` on a call also returns the GPU time per step
    ("radix count", "radix scan", "radix scatter").
    """

    def __init__(self, n: int, dtype, what: str = "keys", descending: bool = False, skip_digits: bool = False):
        device = get_device()
        self.dtype = np.dtype(dtype)
        if self.dtype not in KEY_DTYPES:
            raise TypeError(f"dtype {self.dtype} is not supported for sort keys; supported: uint32, int32, float32")
        if what not in ("keys", "pairs", "argsort"):
            raise ValueError(f"what must be 'keys', 'pairs' or 'argsort', not {what!r}")
        self.n, self.what, self.skip_digits = check_count("n", n), what, bool(skip_digits)
        if self.n <= 0:
            raise ValueError("a sort plan needs n > 0")
        self.device = device
        self.sorter = radix_sorter(device, self.dtype, descending)
        self.sorter.check_size(self.n)
        self._plan = Plan(device, "sort plan", self._record, self._make_results)
        self._plan.results()  # the constructing thread's results, allocated up front

    def _make_results(self) -> "_SortResults":
        return _SortResults(keys=empty((self.n,), self.dtype, self.device),
                            values=None if self.what == "keys" else empty((self.n,), U32, self.device))

    def _record(self, program: Program, keys: Array, *values: Array) -> None:
        # The calling thread's results and passes (run() keys the recording on both).
        results = self._plan.results()
        self.sorter.record(program, keys, results.keys, values[0] if values else None, results.values,
                           index_values=self.what == "argsort", digits=results.digits)

    @property
    def keys(self) -> Array:
        """The calling thread's sorted keys."""
        return self._plan.results().keys

    @property
    def values(self) -> Array | None:
        """The calling thread's values (or indices for "argsort")."""
        return self._plan.results().values

    @property
    def _temps(self) -> dict:
        """The calling thread's temporary buffers (the same ones on every run)."""
        return dict(enumerate(self._plan.program.held))

    @property
    def _programs(self) -> dict:
        """The calling thread's recorded program, keyed by its input buffers (one at a time)."""
        program = self._plan.program
        return {self._plan._state().key: program} if program.steps else {}

    def __call__(self, keys, values=None, profile: bool = False):
        check_current(self.device, "this plan")
        k = _one_dimensional(keys, "keys", (self.dtype,))
        if k.size != self.n:
            raise ValueError(f"plan is for {self.n} keys, got {k.size}")
        results = self._plan.results()
        outputs = [results.keys.buffer] + ([results.values.buffer] if results.values is not None else [])
        inputs = [k.buffer] + ([values.buffer] if isinstance(values, Array) else [])
        if any(i is o for i in inputs for o in outputs):
            raise ValueError("an input is this plan's own result buffer (overwritten by the run): pass a copy")
        arrays = (k,)
        if self.what == "pairs":
            if values is None:
                raise ValueError("a 'pairs' plan needs values")
            v = _one_dimensional(values, "values", VALUE_DTYPES)
            if v.size != self.n:
                raise ValueError(f"plan is for {self.n} values, got {v.size}")
            if results.values.dtype != v.dtype:  # the same buffer: no new recording
                results.values = results.values.alias((self.n,), v.dtype)
            arrays = (k, v)
        # Other passes than the recorded ones: record again (same buffers from the pool).
        results.digits = self.sorter.probe(k) if self.skip_digits else ALL_DIGITS
        times = self._plan.run(*arrays, profile=profile, variant=results.digits)
        result = {"keys": results.keys, "pairs": (results.keys, results.values), "argsort": results.values}[self.what]
        return (result, times) if profile else result


@dataclass
class _SortResults:
    """One thread's result Arrays of a SortPlan and the passes of its last run."""

    keys: Array
    values: Array | None
    digits: tuple = ALL_DIGITS


# -- the axis= form of sort, argsort and sort_pairs ------------------------------------
def sort_axis(what: str, x, axis, descending: bool, method: str, values=None):
    """sort / argsort / sort_pairs of an n-D `x` along `axis` (None: flattened): rows of
    the last axis are segments of equal length; another axis is moved last on the GPU
    first (and back after)."""
    if method not in METHODS:
        raise ValueError(f"unknown sort method {method!r}; methods: {', '.join(METHODS)}")
    arr = as_input(x, SORT_KEY_DTYPES)
    vals = None
    if what == "pairs":
        vals = as_input(values, SORT_KEY_DTYPES)
        if vals.shape != arr.shape:
            raise ValueError(f"keys and values differ in shape: {arr.shape} and {vals.shape}")
    if axis is None or arr.ndim <= 1:
        flat = arr.ravel()
        if axis is not None and arr.ndim == 1:
            normalize_axis(axis, 1)
        if what == "keys":
            return sort(flat, descending=descending, method=method)
        if what == "argsort":
            return argsort(flat, descending=descending)
        return sort_pairs(flat, vals.ravel(), descending=descending)
    ax = normalize_axis(axis, arr.ndim)
    last = ax == arr.ndim - 1
    if not last:  # sort rows of the array with the axis moved to the end, then move it back
        arr = move_axis(arr, ax)
        vals = move_axis(vals, ax) if vals is not None else None
    length = arr.shape[-1]
    mode = {"keys": VALUES_NONE, "argsort": VALUES_POSITION, "pairs": VALUES_GATHER}[what]
    keys_out, vals_out = sort_rows(arr.ravel(), length, descending, mode, vals.ravel() if vals is not None else None)
    keys_out = keys_out.reshape(arr.shape)
    vals_out = vals_out.reshape(arr.shape) if vals_out is not None else None
    if not last:
        shape = arr.shape[:ax] + (length,) + arr.shape[ax:-1]
        keys_out = move_axis(keys_out, ax, back=True, shape=shape)
        vals_out = move_axis(vals_out, ax, back=True, shape=shape) if vals_out is not None else None
    return {"keys": keys_out, "argsort": vals_out, "pairs": (keys_out, vals_out)}[what]
