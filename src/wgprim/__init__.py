"""wgprim: GPU parallel primitives on WebGPU.

Workgroups cannot synchronize with each other; the only global sync is the end of a
dispatch. Every primitive here is a chain of dispatches (see "The rule" in the README and docs/design.md).
"""
from wgprim.array import Array, asarray, empty
from wgprim.device import get_device, list_adapters, use_adapter, use_device
from wgprim.errors import NoAdapterError, WgprimError
from wgprim.ops.operators import Monoid
from wgprim.ops.reduce import ReducePlan, argmax, argmin, max, min, prod, reduce, sum
from wgprim.ops.scan import ScanPlan, cumsum, scan
from wgprim.ops.sort import SortPlan, argsort, sort, sort_pairs
from wgprim.ops.histogram import bincount, histogram
from wgprim.ops.select import compact, nonzero, run_length_encode, unique
from wgprim.program import batch
from wgprim.ops.segmented import segment_reduce, segment_scan, segment_sort
from wgprim.ops.topk import topk

__version__ = "0.1.0"

__all__ = [
    "Array", "asarray", "empty", "get_device", "list_adapters", "use_adapter", "use_device",
    "NoAdapterError", "WgprimError", "Monoid", "batch",
    "reduce", "sum", "prod", "min", "max", "argmin", "argmax", "ReducePlan",
    "scan", "cumsum", "ScanPlan",
    "sort", "argsort", "sort_pairs", "SortPlan",
    "histogram", "bincount", "compact", "nonzero", "unique", "run_length_encode",
    "segment_reduce", "segment_scan", "segment_sort", "topk",
]
