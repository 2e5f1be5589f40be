"""Reductions: sum, prod, min, max, argmin, argmax, bitwise and/or/xor, user monoids.

Structure (each arrow a dispatch boundary, the only global sync):
  reduce_tiles: each workgroup reduces consecutive tiles to one partial
  -> reduce_partials: only when there are more partials than one workgroup handles well
  -> reduce_final: one workgroup combines the partials and writes the result.

Semantics follow numpy: u32/i32 arithmetic wraps modulo 2^32; argmin/argmax return the
first index on ties; min/max/argmin/argmax propagate NaN; an empty input gives the
identity for sum/prod/bitwise/custom operators and raises ValueError for min/max/arg*.
Float sums and products round differently from numpy's pairwise order: see
`sum_error_bound` and `prod_error_bound` for the bounds the tests hold them to.
"""
from __future__ import annotations

import builtins

import numpy as np

from wgprim.array import Array, asarray, check_dtype, empty
from wgprim.device import get_device
from wgprim.ops import block_scan, numpy_options, operators
from wgprim.ops.common import as_input, check_out, chunks
from wgprim.program import Plan, Program, get_pipeline

WG = 256
TILE = WG * 4 * 4  # elements per tile: WG invocations x 4 vec4 loads
MAX_GROUPS = 2048  # step-1 workgroups per chunk: a few waves on a large GPU, few partials
FINAL_MAX = 8192  # partials the last single workgroup combines
PARTIALS_PER_GROUP = 4096  # partials per workgroup in an intermediate level


def sum_error_bound(n: int, abs_sum: float, dtype=np.float32) -> float:
    """Worst-case |error| of wgprim's float sum of n elements whose |x| add to abs_sum.

    Each element passes through at most: its invocation's sequential chain (4 vec4
    lanes + 4 vec4s per tile, times the tiles per workgroup), 8 levels of the workgroup
    tree, then the partial levels; each addition adds at most one rounding (eps/2
    relative to the magnitudes involved), so |error| <= depth * eps * sum(|x|).
    """
    eps = float(np.finfo(dtype).eps)
    tiles = -(-n // TILE)
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

    def __init__(self, dev, n: int, dt: np.dtype, op):
        self.n, self.dt, self.op = n, dt, op
        self.name, _ = operators.resolve(op, dt)
        self.preamble = operators.preamble(op, dt) + block_scan.reduce_preamble(block_scan.ACCUMULATOR)
        self.acc_bytes = operators.accumulator_bytes(op, dt)
        self.chunks = chunks(n, dt.itemsize, TILE, dev)
        self.pipes = {
            e: get_pipeline(dev, "reduce", self.preamble, e, {"WG": WG})
            for e in ("reduce_tiles", "reduce_partials", "reduce_final")
        }
        # Step-1 shape per chunk: (groups, tiles per group).
        self.shapes = []
        for c in self.chunks:
            tiles = -(-c.count // TILE)
            per = -(-tiles // MAX_GROUPS)
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
        while count > FINAL_MAX:
            groups = -(-count // PARTIALS_PER_GROUP)
            params = p.params(count, groups, 0, 0, 0, PARTIALS_PER_GROUP)
            p.dispatch("reduce partials", self.pipes["reduce_partials"], {0: params, 3: first, 2: second}, groups)
            first, second, count = second, first, groups
        params = p.params(count, 1, 0, 0, 0, 0)
        p.dispatch("reduce final", self.pipes["reduce_final"], {0: params, 3: first, 4: out.buffer}, 1)

    def temp_bytes(self) -> list[int]:
        return [self.partial_count * self.acc_bytes, builtins.max(1, -(-self.partial_count // PARTIALS_PER_GROUP)) * self.acc_bytes]


def _empty_result(op, dt: np.dtype, name: str) -> Array:
    if name in ("min", "max") or name in operators.ARG_OPS:
        raise ValueError(f"{name} of an empty array is undefined (numpy raises too)")
    return asarray(operators.identity_value(op, dt))


def reduce(x, op="sum", axis=None, *, keepdims: bool = False) -> Array:
    """Reduce every element of `x` with `op`: a built-in name (sum, prod, min, max, argmin,
    argmax, bitwise_and, bitwise_or, bitwise_xor) or a `wgprim.Monoid`. Returns a 0-d Array;
    `.item()` gives the Python scalar. `axis=` (int) reduces along one axis, `keepdims=` as
    numpy (ops/axis.py)."""
    if axis is not None or keepdims:
        from wgprim.ops.axis import reduce_entry

        return reduce_entry(x, op, axis, keepdims)
    arr = as_input(x, operators.NUMERIC)
    name, _ = operators.resolve(op, arr.dtype)
    if arr.size == 0:
        return _empty_result(op, arr.dtype, name)
    program = Program(arr.device, label=f"reduce {name}")
    out = empty((), operators.result_dtype(op, arr.dtype), arr.device)
    ReduceRecorder(arr.device, arr.size, arr.dtype, op).record(program, arr, out)
    program.run()
    return out


class ReducePlan:
    """A reduction built once for (n, dtype, op) and run many times with no new pipelines
    or buffers. The returned Array is the plan's own result buffer for the calling thread,
    overwritten by that thread's next run (each thread has its own), unless `out=` is
    given. `profile=True` also returns GPU time per step. Safe to share between threads."""

    def __init__(self, n: int, dtype, op="sum"):
        device = get_device()
        self.dtype = check_dtype(dtype, device, operators.NUMERIC)
        self.n, self.op = int(n), op
        self.name, _ = operators.resolve(op, self.dtype)
        if self.n <= 0:
            raise ValueError("a reduce plan needs n > 0")
        result_dtype = operators.result_dtype(op, self.dtype)
        self._plan = Plan(device, f"reduce plan {self.name}", self._record, lambda: empty((), result_dtype, device))

    @property
    def result(self) -> Array:
        """The calling thread's result Array (what `plan(x)` returns without `out=`)."""
        return self._plan.results()

    def _record(self, program: Program, x: Array, out: Array) -> None:
        ReduceRecorder(program.device, self.n, self.dtype, self.op).record(program, x, out)

    def __call__(self, x, out: Array | None = None, profile: bool = False):
        arr = as_input(x, operators.NUMERIC)
        if arr.size != self.n or arr.dtype != self.dtype:
            raise ValueError(f"plan is for {self.n} elements of {self.dtype}, got {arr.size} of {arr.dtype}")
        out = check_out(self.result if out is None else out, (), operators.result_dtype(self.op, self.dtype), (arr,))
        times = self._plan.run(arr, out, profile=profile)
        return (out, times) if profile else out


def sum(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    numpy_options.refuse("sum", numpy_kw, numpy_options.REDUCTION)
    return reduce(x, "sum", axis, keepdims=keepdims)


def prod(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    numpy_options.refuse("prod", numpy_kw, numpy_options.REDUCTION)
    return reduce(x, "prod", axis, keepdims=keepdims)


def _min_max(x, op: str, method: str, axis=None, keepdims: bool = False) -> Array:
    if axis is not None or keepdims:
        return reduce(x, op, axis, keepdims=keepdims)
    if method == "atomic":
        # One atomicMin/atomicMax per workgroup into a global word, read in the next
        # dispatch: the legitimate cross-workgroup atomic. Tree stays the default: on an
        # H200 both read at about the same speed (docs/histogram_select.md).
        from wgprim.ops.atomic_minmax import atomic_reduce

        return atomic_reduce(x, op)
    if method != "tree":
        raise ValueError(f"method must be 'tree' or 'atomic', not {method!r}")
    return reduce(x, op)


def min(x, axis=None, *, keepdims: bool = False, method: str = "tree", **numpy_kw) -> Array:
    """Smallest element (NaN if any). `method="atomic"`: u32/i32/f32 through global atomics."""
    numpy_options.refuse("min", numpy_kw, numpy_options.REDUCTION)
    return _min_max(x, "min", method, axis, keepdims)


def max(x, axis=None, *, keepdims: bool = False, method: str = "tree", **numpy_kw) -> Array:
    """Largest element (NaN if any). `method="atomic"`: u32/i32/f32 through global atomics."""
    numpy_options.refuse("max", numpy_kw, numpy_options.REDUCTION)
    return _min_max(x, "max", method, axis, keepdims)


def argmin(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    numpy_options.refuse("argmin", numpy_kw, numpy_options.ARG_REDUCTION)
    return reduce(x, "argmin", axis, keepdims=keepdims)


def argmax(x, axis=None, *, keepdims: bool = False, **numpy_kw) -> Array:
    numpy_options.refuse("argmax", numpy_kw, numpy_options.ARG_REDUCTION)
    return reduce(x, "argmax", axis, keepdims=keepdims)
