"""Sorting's front doors: sort, argsort, sort_pairs, lexsort and SortPlan for uint32,
int32, float32, uint64, int64 and float64 keys, of 1-D arrays or along an axis.

Semantics (those of numpy's stable sort, `np.sort` / `np.argsort(kind="stable")`):
- Results are the input's own bits, moved: a sort is a bitwise permutation of its input.
- NaN sorts after every number (last ascending, first descending); NaNs of any sign and
  payload are equal keys, kept in input order.
- -0.0 and +0.0 are equal keys, kept in input order (each keeps its sign).
- descending: largest first, equal keys still in input order (so it is not the reverse
  of the ascending result).
- n-D input is sorted along `axis` (default -1; None flattens): rows of the last axis are
  segments of equal length (ops/segmented.py). Other key dtypes raise TypeError.
- argsort and lexsort return uint32 indices (numpy: intp).

Methods: "radix" (default, ops/radix_sort.py, stable, any length the device's buffers hold;
64-bit keys and several keys by chains of 32-bit sorts, ops/lexsort.py) and "bitonic"
(ops/bitonic.py, the sorting network, 32-bit keys; stable where ties can differ in bits:
float32).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.array import Array, empty, zeros
from wgprim.device import check_current, get_device
from wgprim.ops import lexsort as chains
from wgprim.ops import numpy_options
from wgprim.ops.axis import move_axis, normalize_axis
from wgprim.ops.bitonic import bitonic_sorter
from wgprim.ops.common import as_input, check_count, check_flag
from wgprim.ops.radix_sort import ALL_DIGITS, radix_sorter
from wgprim.ops.segmented import VALUES_GATHER, VALUES_NONE, VALUES_POSITION, sort_rows
from wgprim.plans import HoldsGPU, Plan
from wgprim.program import Program
from wgprim.recordings import run_recorded

U32, I32, F32 = np.dtype(np.uint32), np.dtype(np.int32), np.dtype(np.float32)
U64, I64, F64 = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.float64)
KEY_DTYPES = (U32, I32, F32, U64, I64, F64)
NARROW = (U32, I32, F32)  # keys the 32-bit radix passes sort directly
VALUE_DTYPES = KEY_DTYPES  # any 4- or 8-byte dtype rides along
METHODS = ("radix", "bitonic")


def _check_method(method) -> None:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"unknown sort method {method!r}; methods: {', '.join(METHODS)}")


def _check_stable(stable) -> None:
    """numpy's stable= (None, True or False); wgprim's sorts are always stable."""
    if stable is not None:
        check_flag("stable", stable)


def _one_dimensional(x, what: str, allowed) -> Array:
    arr = as_input(x, allowed)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape} (use .ravel() to sort every element)")
    return arr


def _axis_form(x, axis) -> bool:
    """Whether a sort takes the axis= path (n-D input or axis=None); a 1-D input's axis is
    checked here (numpy's AxisError / TypeError)."""
    ndim = getattr(x, "ndim", None)
    if ndim is None:
        ndim = np.ndim(x)
    if axis is None or ndim > 1:
        return True
    normalize_axis(axis, ndim)  # a 0-d input has no axis: numpy's AxisError
    return False


def sort(x, *, axis=-1, descending: bool = False, stable: bool = True, method: str = "radix",
         kind=None, order=None) -> Array:
    """A sorted copy of the 1-D `x` (uint32, int32, float32, uint64, int64 or float64), as
    numpy's np.sort: the input's own bits, ties in input order.
    n-D: along `axis` (the last; None flattens), ops/segmented.py."""
    numpy_options.sort_options("sort", kind, order)
    descending = check_flag("descending", descending)
    _check_stable(stable)
    _check_method(method)
    if _axis_form(x, axis):
        return sort_axis("keys", x, axis, descending, method)
    keys = _one_dimensional(x, "sort input", KEY_DTYPES)
    if method == "bitonic" and keys.dtype not in NARROW:
        raise TypeError(f"method='bitonic' sorts uint32, int32 and float32 keys, not {keys.dtype}: "
                        "use method='radix'")
    out = empty((keys.size,), keys.dtype, keys.device)
    if keys.size == 0:
        return out
    if method == "bitonic":
        sorter = bitonic_sorter(keys.device, keys.dtype, descending)
        run_recorded(keys.device, (sorter,), (keys, out), sorter.record, "bitonic sort")
    else:
        run_recorded(keys.device, _sort_key(keys, descending), (keys, out),
                     lambda p, k, o: chains.record_any_sort(p, k, o, descending=descending), "radix sort")
    return out


def _sort_key(keys: Array, descending: bool) -> tuple:
    """The recording key of a sort of `keys` (what its recording depends on besides the
    arrays and the settings)."""
    return chains.sort_key(keys.device, (keys.dtype,), keys.size, descending)


def sort_pairs(keys, values, *, axis=-1, descending: bool = False) -> tuple[Array, Array]:
    """(sorted keys, values in the same order): a stable sort of `values` by `keys`.
    Values may be any 4- or 8-byte dtype of wgprim (uint32, int32, float32, uint64, int64,
    float64), e.g. an index array. n-D: along `axis` (the last; None flattens),
    ops/segmented.py."""
    descending = check_flag("descending", descending)
    if _axis_form(keys, axis):
        return sort_axis("pairs", keys, axis, descending, "radix", values)
    k = _one_dimensional(keys, "keys", KEY_DTYPES)
    v = _one_dimensional(values, "values", VALUE_DTYPES)
    if v.size != k.size:
        raise ValueError(f"keys and values differ in length: {k.size} and {v.size}")
    keys_out = empty((k.size,), k.dtype, k.device)
    vals_out = empty((v.size,), v.dtype, k.device)
    if k.size == 0:
        return keys_out, vals_out
    run_recorded(k.device, (*_sort_key(k, descending), "pairs"), (k, v, keys_out, vals_out),
                 lambda p, k, v, ko, vo: chains.record_any_sort(p, k, ko, v, vo, descending=descending), "sort pairs")
    return keys_out, vals_out


def argsort(x, *, axis=-1, descending: bool = False, stable: bool = True, kind=None, order=None) -> Array:
    """uint32 indices that sort the 1-D `x` stably, as np.argsort(x, kind="stable").
    n-D: along `axis` (the last; None flattens), ops/segmented.py."""
    numpy_options.sort_options("argsort", kind, order)
    descending = check_flag("descending", descending)
    _check_stable(stable)
    if np.ndim(x) == 0 and axis is not None:  # numpy sorts a 0-d input as one element
        normalize_axis(axis, 1)
        axis = None
    if _axis_form(x, axis):
        return sort_axis("argsort", x, axis, descending, "radix")
    k = _one_dimensional(x, "argsort input", KEY_DTYPES)
    return argsort_with_keys(k, descending)[0]


def argsort_with_keys(k: Array, descending: bool = False, keep_keys: bool = False,
                      kept: bool = True) -> tuple[Array, Array | None]:
    """(indices, sorted keys or None) of the 1-D Array k (any key dtype): the keys come out
    of the same sort, kept when asked for. kept=False: not a kept recording (a step of a
    larger call: run_recorded)."""
    dev = k.device
    idx = empty((k.size,), U32, dev)
    if k.size == 0:
        return idx, (empty((0,), k.dtype, dev) if keep_keys else None)
    key = (*_sort_key(k, descending), "argsort")
    if keep_keys:
        keys_out = empty((k.size,), k.dtype, dev)
        run_recorded(dev, key, (k, keys_out, idx),
                     lambda p, k, ko, i: chains.record_any_sort(p, k, ko, None, i, index_values=True,
                                                                descending=descending),
                     "argsort", keep=kept)
        return idx, keys_out
    run_recorded(dev, key, (k, idx),
                 lambda p, k, i: chains.record_any_sort(p, k, None, None, i, index_values=True, descending=descending),
                 "argsort", keep=kept)
    return idx, None


def sorted_copy(k: Array, kept: bool = True) -> Array:
    """The ascending sort of the 1-D Array k, any key dtype (kept=False: see
    argsort_with_keys)."""
    out = empty((k.size,), k.dtype, k.device)
    if k.size:
        run_recorded(k.device, _sort_key(k, False), (k, out), lambda p, k, o: chains.record_any_sort(p, k, o),
                     "radix sort", keep=kept)
    return out


def lexsort(keys, axis=-1) -> Array:
    """uint32 indices that sort by several keys, as np.lexsort(keys): the last key is the
    primary one, ties go to the key before it, and so on; the sort is stable (remaining
    ties in input order). `keys`: a tuple or list of 1-D arrays of one length, of any key
    dtypes (mixed: uint32, int32, float32, uint64, int64, float64), or a 2-D array whose
    rows are the keys. numpy returns intp indices; wgprim's are uint32, as its argsort's.
    One chain of stable 32-bit radix sorts over every key's words (ops/lexsort.py)."""
    if isinstance(keys, (tuple, list)):
        arrays = [as_input(k, KEY_DTYPES) for k in keys]
    else:
        whole = as_input(keys, KEY_DTYPES)
        if whole.ndim == 0 or whole.shape[0] == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        if whole.ndim == 1:  # numpy: a sequence of 0-d keys, so one element to sort
            return _index_zero(whole.device)
        if whole.ndim != 2:
            raise ValueError(f"lexsort takes a tuple of 1-D keys or a 2-D array of keys as rows, "
                             f"got shape {whole.shape}")
        arrays = [_row(whole, i) for i in range(whole.shape[0])]
    if not arrays:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if all(a.ndim == 0 for a in arrays):  # one element: index 0
        return _index_zero(arrays[0].device)
    if any(a.ndim != 1 for a in arrays):
        raise ValueError("lexsort's keys must be one-dimensional (numpy's n-D keys are not supported: "
                         "pass the rows one by one)")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError(f"all keys need to be the same shape, got {[a.shape for a in arrays]}")
    normalize_axis(axis, 1)
    dev, n = arrays[0].device, arrays[0].size
    idx = empty((n,), U32, dev)
    if n == 0:
        return idx
    dtypes = tuple(a.dtype for a in arrays)

    def record(p, *arrays_and_out):
        *ks, out = arrays_and_out
        words = [w for k in ks for w in chains.words(p, k)]
        chains.record_argsort_words(p, words, out)

    run_recorded(dev, ("lexsort", *chains.sort_key(dev, dtypes, n, False)), (*arrays, idx), record, "lexsort")
    return idx


def _index_zero(device) -> Array:
    """lexsort's answer for keys of one element each (numpy's 0-d index 0)."""
    return zeros((), U32, device)


def _row(a: Array, i: int) -> Array:
    """Row i of the 2-D Array a, as a 1-D Array of its own (a copy on the GPU)."""
    n = a.shape[1]
    out = empty((n,), a.dtype, a.device)
    if n:
        p = Program(a.device, label="lexsort row")
        p.copy(a.buffer, i * n * a.itemsize, out.buffer, 0, n * a.itemsize)
        p.run()
    return out


class SortPlan(HoldsGPU):
    """A radix sort built once for (n, dtype, what, descending) and run many times with no
    new pipelines or buffers (a `plans.Plan`: steps re-recorded only when the input
    buffers, or with `skip_digits` the passes, change).

    what: "keys" (call plan(x) -> sorted keys), "pairs" (plan(keys, values) -> (keys,
    values)) or "argsort" (plan(x) -> indices). Results are the plan's own Arrays for the
    calling thread, overwritten by that thread's next run: each thread that runs the plan
    gets its own temporaries and results, so a plan is safe to share between threads.
    `skip_digits=True` (32-bit keys) probes the keys on every run (one sync with the GPU)
    and skips the passes whose digit is equal in every key; the default runs all four
    passes without waiting for anything. `profile=True` on a call also returns the GPU time
    per step ("radix count", "radix scan", "radix scatter"; 64-bit keys also "key words"
    and "gather").
    """

    def __init__(self, n: int, dtype, what: str = "keys", descending: bool = False, skip_digits: bool = False):
        device = get_device()
        self.dtype = np.dtype(dtype)
        if self.dtype not in KEY_DTYPES:
            raise TypeError(f"dtype {self.dtype} is not supported for sort keys; supported: "
                            f"{', '.join(map(str, KEY_DTYPES))}")
        if not isinstance(what, str) or what not in ("keys", "pairs", "argsort"):
            raise ValueError(f"what must be 'keys', 'pairs' or 'argsort', not {what!r}")
        self.descending = check_flag("descending", descending)
        self.skip_digits = check_flag("skip_digits", skip_digits)
        self.n, self.what = check_count("n", n), what
        if self.n <= 0:
            raise ValueError("a sort plan needs n > 0")
        if self.skip_digits and self.dtype not in NARROW:
            raise ValueError("skip_digits=True probes 32-bit keys; a 64-bit key's sort runs every pass "
                             "(leave skip_digits False)")
        self.device = device
        self.sorter = radix_sorter(device, self.dtype if self.dtype in NARROW else U32, self.descending)
        self.sorter.check_size(self.n * self.dtype.itemsize // 4)
        self._plan = Plan(device, "sort plan", self._record, self._make_results)
        self._plan.results()  # the constructing thread's results, allocated up front

    def _make_results(self) -> "_SortResults":
        return _SortResults(keys=empty((self.n,), self.dtype, self.device),
                            values=None if self.what == "keys" else empty((self.n,), U32, self.device))

    def _record(self, program: Program, keys: Array, *values: Array) -> None:
        # The calling thread's results and passes (run() keys the recording on both).
        results = self._plan.results()
        vals_in = values[0] if values else None
        if self.dtype in NARROW and (vals_in is None or vals_in.itemsize == 4):
            self.sorter.record(program, keys, results.keys, vals_in, results.values,
                               index_values=self.what == "argsort", digits=results.digits)
        else:
            chains.record_any_sort(program, keys, results.keys, vals_in, results.values,
                                   index_values=self.what == "argsort", descending=self.descending)

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
            if results.values.dtype != v.dtype:  # the same buffer, if it is large enough
                if results.values.itemsize >= v.itemsize:
                    results.values = results.values.alias((self.n,), v.dtype)
                else:
                    results.values = empty((self.n,), v.dtype, self.device)
            arrays = (k, v)
        # Other passes than the recorded ones: record again (same buffers from the pool).
        results.digits = self.sorter.probe(k) if self.skip_digits else ALL_DIGITS
        times = self._plan.run(*arrays, profile=check_flag("profile", profile), variant=results.digits)
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
    _check_method(method)
    arr = as_input(x, KEY_DTYPES)
    vals = None
    if what == "pairs":
        vals = as_input(values, VALUE_DTYPES)
        if vals.shape != arr.shape:
            raise ValueError(f"keys and values differ in shape: {arr.shape} and {vals.shape}")
    if axis is None or arr.ndim <= 1:
        if axis is not None:
            normalize_axis(axis, max(arr.ndim, 1) if arr.ndim else 0)
        flat = arr.ravel()
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
    flat_vals = vals.ravel() if vals is not None else None
    if arr.dtype in NARROW and (vals is None or vals.itemsize == 4):
        keys_out, vals_out = sort_rows(arr.ravel(), length, descending, mode, flat_vals)
    else:
        keys_out, vals_out = _sort_rows_wide(arr.ravel(), length, descending, mode, flat_vals)
    keys_out = keys_out.reshape(arr.shape)
    vals_out = vals_out.reshape(arr.shape) if vals_out is not None else None
    if not last:
        shape = arr.shape[:ax] + (length,) + arr.shape[ax:-1]
        keys_out = move_axis(keys_out, ax, back=True, shape=shape)
        vals_out = move_axis(vals_out, ax, back=True, shape=shape) if vals_out is not None else None
    return {"keys": keys_out, "argsort": vals_out, "pairs": (keys_out, vals_out)}[what]


def _sort_rows_wide(keys: Array, length: int, descending: bool, mode: int, values: Array | None):
    """sort_rows for 64-bit keys or 8-byte values: one chain over the keys' words and the
    row of each element (ops/lexsort.py)."""
    dev = keys.device
    keys_out = empty((keys.size,), keys.dtype, dev)
    vals_out = None if mode == VALUES_NONE else empty((keys.size,), U32 if mode == VALUES_POSITION else values.dtype,
                                                       dev)
    if keys.size == 0 or length == 0:
        return keys_out, vals_out
    program = Program(dev, label="batched sort")
    chains.record_segmented_sort(program, keys, keys_out, values, vals_out, mode == VALUES_POSITION, descending,
                                 {"length": length})
    program.run()
    return keys_out, vals_out
