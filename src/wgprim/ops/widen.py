"""32-bit integers to 64-bit ones on the GPU (kernels/widen.wgsl), as numpy's
`astype(np.int64)` / `astype(np.uint64)`: int32 sign-extended, uint32 zero-extended. The
step before a 64-bit scan of 32-bit input (cumulative_sum, which sums int32 in int64 as
numpy does)."""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.ops.common import chunks
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256
I32, U32 = np.dtype(np.int32), np.dtype(np.uint32)


def record_widen(p: Program, src: Array, dst: Array) -> None:
    """Add the steps writing dst (int64 or uint64, src's size) from src (int32 or uint32)."""
    if src.dtype not in (I32, U32) or dst.itemsize != 8 or dst.dtype.kind not in "iu" or dst.size != src.size:
        raise ValueError(f"widen takes int32 or uint32 into int64 or uint64 of the same size, not "
                         f"{src.size} of {src.dtype} into {dst.size} of {dst.dtype}")
    pipe = get_pipeline(p.device, "widen", "", "widen", {"WG": WG, "SIGNED": src.dtype == I32})
    for c in chunks(src.size, dst.itemsize, WG, p.device):  # the 64-bit side fills a binding first
        groups = -(-c.count // WG)
        p.dispatch("widen", pipe, {0: p.params(c.count, groups), 1: c.view(src), 2: c.view(dst)}, groups)
