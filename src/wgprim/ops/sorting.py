"""The sort of one whole array, as one-shot calls record it: inputs that fit one workgroup
are sorted there in one dispatch (the short-segment sort of ops/segmented.py, a bitonic
network over (key, position) pairs in workgroup memory: stable, no digit passes, no
scan), longer ones by every radix pass (ops/radix_sort.py).

No pass is skipped on a guess: knowing which digits are equal in every key needs the keys
on the host (RadixSorter.probe: one sync with the GPU, 150-200 us on an H200 against a
pass of ~0.6 ms at 2^24 keys), which pays only for keys that span few bits. SortPlan(...,
skip_digits=True) is the way to ask for it.
"""
from __future__ import annotations

from wgprim.array import Array
from wgprim.ops.radix_sort import radix_sorter
from wgprim.ops.segmented import VALUES_GATHER, VALUES_NONE, VALUES_POSITION, SegmentSorter, tile_size
from wgprim.program import Program


def one_workgroup(device, n: int) -> bool:
    """Whether a sort of n keys runs in one workgroup."""
    return 0 < n <= tile_size(device)


def record_sort(p: Program, keys: Array, keys_out: Array, vals_in: Array | None = None,
                vals_out: Array | None = None, index_values: bool = False, descending: bool = False) -> None:
    """Add the stable sort of the 1-D `keys` into `keys_out` (values along: `vals_in`
    gathered into `vals_out`, or the indices with `index_values`)."""
    n = keys.size
    if one_workgroup(p.device, n):
        mode = VALUES_POSITION if index_values else VALUES_GATHER if vals_out is not None else VALUES_NONE
        P = 1 << max(0, (n - 1).bit_length())
        SegmentSorter(keys, descending, mode).record_small(p, 1, P, keys_out, vals_in, vals_out, length=n)
        return
    radix_sorter(p.device, keys.dtype, descending).record(p, keys, keys_out, vals_in, vals_out,
                                                          index_values=index_values)


def sort_key(device, keys: Array, descending: bool) -> tuple:
    """What a recording of record_sort depends on besides its arrays and the settings."""
    if one_workgroup(device, keys.size):
        return ("sort, one workgroup", bool(descending))
    return ("radix sort", radix_sorter(device, keys.dtype, descending))
