"""numpy keyword options that wgprim's functions do not take.

A numpy user passes them out of habit (`np.sum(x, dtype=..., where=...)`): each one given
at numpy's default is accepted and ignored; any other value raises NotImplementedError
naming what wgprim offers instead, never a silent different result. Names numpy does not
have either stay a TypeError, as Python gives for any unknown keyword."""
from __future__ import annotations

import numpy as np

_NO_VALUE = object()

# option -> (numpy's default, what wgprim offers instead), per family of functions.
REDUCTION = {
    "dtype": (None, "the result has the input's dtype (integer sums wrap modulo 2^32, 2^64 for "
                    "64-bit integers); convert the input first, e.g. wgprim.asarray(x.astype(np.int64))"),
    "out": (None, "results are new Arrays; a Plan (e.g. ReducePlan) reuses its output"),
    "initial": (_NO_VALUE, "combine the result with the initial value afterwards"),
    "where": (True, "select the elements first with wgprim.compact(x, mask)"),
}
ARG_REDUCTION = {"out": REDUCTION["out"]}
SCAN = {
    "dtype": (None, "the result has the input's dtype (integer sums wrap modulo 2^32, 2^64 for 64-bit "
                    "integers); wgprim.cumulative_sum(x, dtype=...) sums int32 in int64 as numpy"),
    "out": (None, "results are new Arrays; ScanPlan reuses its output"),
}
UNIQUE = {
    "axis": (None, "unique flattens its input"),
    "sorted": (True, "the values are always sorted"),
}
SORT = {
    "order": (None, "structured arrays are not supported: sort keys are uint32, int32, float32, uint64, int64 "
                    "or float64 (several keys: wgprim.lexsort)"),
}
# Every numpy kind is satisfied by a stable sort (the others leave ties in any order).
NUMPY_SORT_KINDS = (None, "stable", "mergesort", "quicksort", "heapsort")


def refuse(function: str, given: dict, family: dict) -> None:
    """Raise for every option in `given` that wgprim does not honour (see the module doc)."""
    for name, value in given.items():
        if name not in family:
            raise TypeError(f"{function}() got an unexpected keyword argument {name!r}")
        default, instead = family[name]
        if isinstance(default, bool):  # where=True, equal_nan=True, ...: numpy's bools count too
            at_default = isinstance(value, (bool, np.bool_)) and bool(value) == default
        else:
            at_default = value is default
        if not at_default:
            shown = f"<{type(value).__name__}>" if hasattr(value, "shape") and getattr(value, "ndim", 0) else repr(value)
            raise NotImplementedError(f"{function}({name}={shown}) is not supported: {instead}")


def sort_options(function: str, kind, order) -> None:
    """numpy's kind= and order= for sort and argsort: any numpy kind is accepted (wgprim's
    sort is always stable, which every kind allows); order= is refused."""
    if kind not in NUMPY_SORT_KINDS:
        raise ValueError(f"{function}(kind={kind!r}): numpy's kinds are 'quicksort', 'mergesort', 'heapsort' "
                         "and 'stable'; wgprim's sort is always stable (choose the algorithm with method=)")
    refuse(function, {"order": order}, SORT)
