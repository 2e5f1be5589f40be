"""Gather: out[i] = src[indices[i]] for elements of 1, 2, 4 or 8 bytes (kernels/gather*.wgsl).

The one way wgprim moves elements by a list of positions: a sort of 64-bit or multi-key
data applies its permutation with it, compaction of elements that are not 4 bytes wide
gathers the kept positions, unique and partition take their values with it. Sources and
outputs larger than one storage binding are split into windows (ops/common.chunks); each
(output window, source window) pair is one dispatch, and every element is written by the
dispatch of the source window that holds its index. Indices must be valid positions of
`src` (callers make them): one outside `src` leaves its element unwritten.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.ops.common import chunks
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256
# Windows start at multiples of this many elements (whole words of packed elements, and
# offsets aligned for binding).
TILE = 256

# itemsize -> (kernel file and entry, preamble, constants)
_ENTRY = {1: ("gather_packed", "", {"PER": 4}), 2: ("gather_packed", "", {"PER": 2}),
          4: ("gather_elements", "alias Element = u32;\n", {}),
          8: ("gather_elements", "alias Element = vec2<u32>;\n", {})}


def _pipeline(device, itemsize: int):
    entry, preamble, constants = _ENTRY[itemsize]
    return get_pipeline(device, ("gather", entry), preamble, entry, {"WG": WG, **constants})


def record_gather(program: Program, src: Array, indices: Array, out: Array) -> None:
    """Add the dispatches writing out[i] = src[indices[i]] (flattened) to `program`.
    `indices`: uint32, as many as `out` has elements; `src` and `out` of one itemsize."""
    if src.itemsize != out.itemsize or src.itemsize not in _ENTRY:
        raise ValueError(f"gather moves elements of 1, 2, 4 or 8 bytes between arrays of one width, "
                         f"not {src.dtype} into {out.dtype}")
    if indices.dtype != np.uint32 or indices.size != out.size:
        raise ValueError(f"gather needs {out.size} uint32 indices, got {indices.size} of {indices.dtype}")
    n, device = out.size, out.device
    if n == 0:
        return
    pipe = _pipeline(device, src.itemsize)
    per_word = max(1, 4 // src.itemsize)  # elements one invocation writes
    # Output windows sized for the wider of an element and its 4-byte index.
    for oc in chunks(n, max(4, out.itemsize), TILE, device):
        groups = -(-(-(-oc.count // per_word)) // WG)
        for sc in chunks(max(src.size, 1), src.itemsize, TILE, device):
            params = program.params(oc.count, sc.start, sc.count, groups)
            program.dispatch("gather", pipe, {0: params, 1: oc.view(indices), 2: sc.view(src), 3: oc.view(out)},
                             groups)
