"""Reductions: sum, prod, min, max, argmin, argmax, bitwise and/or/xor, user monoids (the
building block; the front doors are in api/reduce.py).

Structure (each arrow a dispatch boundary, the only global sync):
  reduce_tiles: each workgroup reduces consecutive tiles to one partial
  -> reduce_partials: only when there are more partials than one workgroup handles well
  -> reduce_final: one workgroup combines the partials and writes the result.

Semantics follow numpy: u32/i32 arithmetic wraps modulo 2^32, u64/i64 modulo 2^64
(kernels/int64.wgsl); argmin/argmax return the first index on ties; min/max/argmin/argmax
propagate NaN, and min/max return one of the input's values bit for bit (which of ±0 and
of several NaNs: kernels/order_key.wgsl); an empty input gives the identity for
sum/prod/bitwise/custom operators and raises ValueError for min/max/arg*. float64 takes
min/max/argmin/argmax only (operators.FLOAT64_ARITHMETIC).
Float sums and products round differently from numpy's pairwise order: see
`sum_error_bound` and `prod_error_bound` for the bounds the tests hold them to.
"""
from __future__ import annotations

import builtins
import dataclasses

import numpy as np

from wgprim.array import Array
from wgprim.ops import block_scan, operators
from wgprim.ops.common import chunks
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.tuning import policy

WG = 256
VECS = 4  # packet loads per invocation per tile (reduce.wgsl)
TILE = WG * VECS * 4  # elements per tile of 4-byte (and 2-byte) dtypes; tile(dt) for any


def tile(dt: np.dtype) -> int:
    """Elements per tile: WG invocations x VECS packets (16 bytes: 4 elements, 2 of 64 bits)."""
    return WG * VECS * operators.packet_elements(dt)


@dataclasses.dataclass(frozen=True)
class ReducePolicy:
    """The reduction's shape (wgprim.tuning): how the partials are cut and combined."""
    max_groups: int = 2048  # step-1 workgroups per chunk: a few waves on a large GPU, few partials
    final_max: int = 8192  # partials the last single workgroup combines
    partials_per_group: int = 4096  # partials per workgroup in an intermediate level


MAX_GROUPS = ReducePolicy.max_groups  # the shipped shape, which sum_error_bound counts with


def sum_error_bound(n: int, abs_sum: float, dtype=np.float32) -> float:
    """Worst-case |error| of wgprim's float sum of n elements whose |x| add to abs_sum.

    Each element passes through at most: its invocation's sequential chain (4 vec4
    lanes + 4 vec4s per tile, times the tiles per workgroup), 8 levels of the workgroup
    tree, then the partial levels; each addition adds at most one rounding (eps/2
    relative to the magnitudes involved), so |error| <= depth * eps * sum(|x|).
    """
    eps = float(np.finfo(dtype).eps)
    tiles = -(-n // tile(np.dtype(dtype)))
    per_group = -(-tiles // MAX_GROUPS)
    depth = 4 * per_group + 8 + 8 + 3 * 16
    return depth * eps * abs_sum


def prod_error_bound(n: int, dtype=np.float32) -> float:
    """Worst-case relative error of a float product of n elements: n - 1 roundings,
    whatever the order (numpy's own float32 product has the same bound)."""
    return builtins.max(n - 1, 1) * float(np.finfo(dtype).eps)


class ReduceRecorder:
    """The reduction as a building block: pipelines and step shapes built once for
    (device, n, dtype, op), then `record(program, x, out)` adds the steps to any Program."""

    def __init__(self, dev, n: int, dt: np.dtype, op, shape: ReducePolicy = ReducePolicy()):
        self.n, self.dt, self.op, self.shape = n, dt, op, shape
        self.name, _ = operators.resolve(op, dt)
        self.preamble = (operators.preamble(op, dt) + operators.packet_preamble(dt)
                         + block_scan.reduce_preamble(block_scan.ACCUMULATOR))
        self.acc_bytes = operators.accumulator_bytes(op, dt)
        self.tile = tile(dt)
        self.chunks = chunks(n, dt.itemsize, self.tile, dev)
        self.pipes = {
            e: get_pipeline(dev, "reduce", self.preamble, e, {"WG": WG})
            for e in ("reduce_tiles", "reduce_partials", "reduce_final")
        }
        # Step-1 shape per chunk: (groups, tiles per group).
        self.shapes = []
        for c in self.chunks:
            tiles = -(-c.count // self.tile)
            per = -(-tiles // shape.max_groups)
            self.shapes.append((-(-tiles // per), per))
        self.partial_count = builtins.sum(g for g, _ in self.shapes)

    def record(self, p: Program, x: Array, out: Array, temps: list | None = None) -> None:
        """Add the steps reading x and writing out[0]; `temps`: the two partials buffers
        (sizes from temp_bytes()), Program temporaries when not given."""
        first, second = temps or [p.temp(b) for b in self.temp_bytes()]
        offset = 0
        for c, (groups, per) in zip(self.chunks, self.shapes):
            params = p.params(c.count, groups, per, c.start, offset, 0)
            p.dispatch("reduce tiles", self.pipes["reduce_tiles"], {0: params, 1: c.view(x), 2: first}, groups)
            offset += groups
        count = self.partial_count
        per_group = self.shape.partials_per_group
        while count > self.shape.final_max:
            groups = -(-count // per_group)
            params = p.params(count, groups, 0, 0, 0, per_group)
            p.dispatch("reduce partials", self.pipes["reduce_partials"], {0: params, 3: first, 2: second}, groups)
            first, second, count = second, first, groups
        params = p.params(count, 1, 0, 0, 0, 0)
        p.dispatch("reduce final", self.pipes["reduce_final"], {0: params, 3: first, 4: out.buffer}, 1)

    def temp_bytes(self) -> list[int]:
        return [self.partial_count * self.acc_bytes, builtins.max(1, -(-self.partial_count // self.shape.partials_per_group)) * self.acc_bytes]


def reduce_recorder(device, n: int, dt: np.dtype, op) -> ReduceRecorder:
    """The ReduceRecorder of (n, dt, op) on `device`, looked up (caches.lookup); its chunks
    depend on the device's binding limit and the ReducePolicy in force too."""
    shape = policy(ReducePolicy, device)
    key = ("reduce", n, dt, operators.key(op), device.max_binding_bytes, shape)
    return lookup(device, key, lambda: ReduceRecorder(device, n, dt, op, shape))
