"""wgprim: GPU parallel primitives on WebGPU.

Workgroups cannot synchronize with each other; the only global sync is the end of a
dispatch. Every primitive here is a chain of dispatches (see "The rule" in the README and docs/design.md).

The public names are imported on first use (any attribute of the package), all at once,
so that `wgprim check` and `wgprim simulate` start without loading numpy or wgpu.
"""
__version__ = "0.1.0"

__all__ = [
    "Array", "asarray", "empty", "zeros", "memory_pool", "get_device", "list_adapters", "use_adapter", "use_device",
    "NoAdapterError", "WgprimError", "Monoid", "batch",
    "reduce", "sum", "mean", "var", "std", "prod", "min", "max", "argmin", "argmax", "ReducePlan",
    "scan", "cumsum", "cumulative_sum", "ScanPlan",
    "sort", "argsort", "sort_pairs", "lexsort", "SortPlan",
    "histogram", "bincount", "compact", "nonzero", "unique", "run_length_encode", "searchsorted",
    "unique_values", "unique_counts", "unique_inverse", "unique_all",
    "segment_reduce", "segment_scan", "segment_sort", "topk", "top_k",
    "partition", "argpartition", "kth_smallest", "warmup", "memory_stats", "empty_cache",
    "any", "all", "count_nonzero", "quantile", "percentile", "median", "nanmedian",
    "nanmin", "nanmax", "nanargmin", "nanargmax", "cumulative_prod",
]

import threading as _threading

_import_lock = _threading.RLock()
_loading_thread = None  # the thread importing the names, while it does


def _import_all() -> None:
    global _loading_thread
    _loading_thread = _threading.get_ident()
    try:
        from wgprim.array import Array, asarray, empty, zeros
        from wgprim.memory import memory_pool
        from wgprim.device import get_device, list_adapters, use_adapter, use_device
        from wgprim.errors import NoAdapterError, WgprimError
        from wgprim.ops.operators import Monoid
        from wgprim.api.reduce import ReducePlan, argmax, argmin, max, min, prod, reduce, sum
        from wgprim.api.statistics import mean, std, var
        from wgprim.api.scan import ScanPlan, cumsum, cumulative_sum, scan
        from wgprim.api.sort import SortPlan, argsort, lexsort, sort, sort_pairs
        from wgprim.api.histogram import bincount, histogram
        from wgprim.api.select import (compact, nonzero, run_length_encode, unique, unique_all, unique_counts,
                                       unique_inverse, unique_values)
        from wgprim.api.search import searchsorted
        from wgprim.program import batch
        from wgprim.api.segmented import segment_reduce, segment_scan, segment_sort
        from wgprim.api.topk import top_k, topk
        from wgprim.api.partition import argpartition, kth_smallest, partition
        from wgprim.warmup import warmup
        from wgprim.api.memory import empty_cache, memory_stats
        from wgprim.api.logic import all, any, count_nonzero
        from wgprim.api.quantile import median, nanmedian, percentile, quantile
        from wgprim.api.nanfunctions import nanargmax, nanargmin, nanmax, nanmin
        from wgprim.api.cumprod import cumulative_prod
    finally:
        _loading_thread = None
    globals().update({name: value for name, value in locals().items() if name in __all__})


def __getattr__(name: str):
    if name not in __all__:
        # `from wgprim import transfer` (a submodule not imported yet): import just it
        if not name.startswith("__"):
            import importlib
            import importlib.util

            if importlib.util.find_spec(f"{__name__}.{name}") is not None:
                return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module 'wgprim' has no attribute {name!r}")
    # While the names are being imported, a missing one is missing to the importing thread
    # (as in any partly initialized module). Other threads wait for the import to finish.
    if _loading_thread == _threading.get_ident():
        raise AttributeError(f"module 'wgprim' has no attribute {name!r}")
    with _import_lock:
        if name not in globals():
            _import_all()
    return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(__all__))
