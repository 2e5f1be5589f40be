"""Exact sums of float64 and float32 (and of 32- and 64-bit integers, for their means and
variances): the correctly rounded value of the exact sum (and of the mean, the variance
and the standard deviation built from exact sums), the same bits in any order of the
input, any chunking and on any device (docs/exact.md). The front
doors: wgprim.sum and reduce (api/reduce.py), wgprim.mean, var and std (api/statistics.py).

Every finite float64 is an integer multiple of 2^-1074 (float32: of 2^-149; an integer:
of 1), so a sum of them is an integer times that unit, carried exactly in integer words (ExBLAS: Collange,
Defour, Graillat, Iakymchuk, Parallel Computing 49, 2015). No float operation is used on
the GPU, so no compiler reassociation or fused multiply-add can change a bit.

Structure (each arrow a dispatch boundary, the only global sync):
  exact_pieces: workgroup g splits each element of one piece (at most PIECE elements of
    one row) by integer operations and adds its term (the element, or its exact square for
    var and std) as 16-bit digits into SLOTS signed i32 words in workgroup memory
    (atomicAdd: exact and order-free); it writes them, as they are, to its own place. A
    digit gains less than 2^16 per element and a piece has at most 2^15 elements, so no
    word overflows and no carry is needed.
  -> exact_combine_wide (rows of many pieces) or exact_combine_rows (few pieces): each
    row's pieces added slot by slot into 64-bit integers (exact below 2^32 pieces); not
    run when every row is one piece (the host reads that piece's i32 words).
  -> the host reads rows * SLOTS words, propagates the carries (numpy, vectorized)
    and rounds each row's exact result once, to nearest even (ops/exact_rounding.py).
Variances: var = (n * sum(x^2) - sum(x)^2) / (n * (n - ddof)), all exact integers, rounded
once (std: its square root, rounded once); no x - mean pass is needed.
Infinities and NaNs are counted (slots DIGITS.. DIGITS + 2), never added: any NaN, or
+inf with -inf, gives NaN; otherwise an infinity gives itself. No partial sum can
overflow, so the result is inf only where the exact sum rounds to inf. A zero sum is +0.0,
as numpy's (its sums start from +0.0, so all -0.0 gives +0.0 too).
"""
from __future__ import annotations

import builtins
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.caches import lookup
from wgprim.ops.axis import _check_binding, normalize_axis, result_shape, split_shape
from wgprim.ops.common import Chunk, check_flag, chunks
from wgprim.ops.exact_rounding import (FLOAT32, FLOAT64, FloatFormat, exact_integers, round_ratio,
                                       round_sqrt_ratio, special)
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.recordings import run_recorded

WG = 256
PIECE = 1 << 15  # elements per workgroup of exact_pieces: < 2^31 / 2^16 keeps an i32 digit exact
WIDE_PIECES = 16  # rows of more pieces than this are combined by a workgroup per slot
COUNTS = 3  # +inf, -inf, NaN after the digits


@dataclass(frozen=True)
class Layout:
    """An input dtype's kernel file and accumulator sizes (kernels/exact_f64.wgsl, ...),
    the unit its values are integers of, and the float format of its results."""

    kernel: str
    sum_digits: int  # SUM_DIGITS there
    square_digits: int  # SQUARE_DIGITS there
    unit: int  # every value is an integer times 2^unit
    float: FloatFormat


F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
I32, U32, I64, U64 = (np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))
EXACT_DTYPES = (F64, F32)  # exact sums (sum(exact=True)) and float32 means
STATISTICS_DTYPES = (F64, F32, I32, U32, I64, U64)  # mean, var, std: integers give float64, as numpy's
LAYOUTS = {
    F64: Layout("exact_f64", 132, 264, -1074, FLOAT64),
    F32: Layout("exact_f32", 20, 40, -149, FLOAT32),
    # Integers are exact in units of 1; only the host's carries see their growth.
    I32: Layout("exact_int32", 5, 9, 0, FLOAT64),
    U32: Layout("exact_uint32", 5, 9, 0, FLOAT64),
    I64: Layout("exact_int64", 5, 9, 0, FLOAT64),
    U64: Layout("exact_uint64", 5, 9, 0, FLOAT64),
}


def pieces_of(length: int) -> int:
    return max(1, -(-length // PIECE))


class ExactSumRecorder:
    """The exact sum of the elements (or of their squares) of a (outer, length, inner)
    view along its middle axis, built once for (device, dtype, shape, squares):
    `record(program, x, sums)` writes rows * slots int64 words (rows = outer * inner) into
    the Array `sums`; `totals()` reads them as exact integers and counts."""

    def __init__(self, dev, dt: np.dtype, outer: int, length: int, inner: int, squares: bool = False):
        layout = LAYOUTS[dt]
        self.digits = layout.square_digits if squares else layout.sum_digits
        self.slots = self.digits + COUNTS
        self.outer, self.length, self.inner = outer, length, inner
        self.rows = outer * inner
        flat = self.rows == 1
        # A long row is split into windows of whole pieces that each fit one binding;
        # an axis reduction binds the whole array once (the caller checks it fits).
        self.chunks = chunks(length, dt.itemsize, PIECE, dev) if flat else [Chunk(0, outer * length * inner)]
        self.chunk_pieces = [pieces_of(c.count) for c in self.chunks] if flat else [pieces_of(length)]
        self.pieces = sum(self.chunk_pieces)  # per row
        files = ("exact_split", layout.kernel, "exact_square_term" if squares else "exact_sum_term", "exact_sum")
        self.wide = self.pieces > WIDE_PIECES
        combine = "exact_combine_wide" if self.wide else "exact_combine_rows"
        self.pipes = {e: get_pipeline(dev, files, "", e, {"WG": WG}) for e in ("exact_pieces", combine)}
        self.combine = self.pipes[combine]

    @property
    def sums_words(self) -> int:
        """The words record() writes: int64 (two u32 each) when the combine runs, i32 when
        every row is one piece (the pieces' own words, no second dispatch)."""
        return self.rows * self.slots

    @property
    def sums_dtype(self) -> np.dtype:
        return np.dtype(np.int32 if self.pieces == 1 else np.int64)

    def record(self, p: Program, x: Array, sums: Array) -> None:
        single = self.pieces == 1
        pieces = sums.buffer if single else p.temp(self.rows * self.pieces * self.slots * 4)
        first = 0
        for c, count in zip(self.chunks, self.chunk_pieces):
            length = c.count if self.rows == 1 else self.length
            groups = self.rows * count
            params = p.params(length, self.inner, count, PIECE, groups, first)
            p.dispatch("exact sum pieces", self.pipes["exact_pieces"], {0: params, 1: c.view(x), 2: pieces}, groups)
            first += groups
        if single:
            return
        params = p.params(0, 0, self.pieces, PIECE, self.sums_words, 0)
        groups = self.sums_words if self.wide else -(-self.sums_words // WG)
        p.dispatch("exact sum combine", self.combine, {0: params, 3: pieces, 4: sums.buffer}, groups)

    def totals(self, words: np.ndarray) -> tuple[list[int], np.ndarray]:
        """(each row's exact sum as an integer of units, its (+inf, -inf, NaN) counts)."""
        table = words.view(self.sums_dtype).astype(np.int64).reshape(self.rows, self.slots)
        return exact_integers(table[:, :self.digits]), table[:, self.digits:]


def exact_sum_recorder(device, dt: np.dtype, outer: int, length: int, inner: int,
                       squares: bool = False) -> ExactSumRecorder:
    """The ExactSumRecorder of (dt, outer, length, inner, squares) on `device`, looked up."""
    key = ("exact sum", dt, outer, length, inner, squares, PIECE, WIDE_PIECES, device.max_binding_bytes)
    return lookup(device, key, lambda: ExactSumRecorder(device, dt, outer, length, inner, squares))


# -- calls ---------------------------------------------------------------------------------

def axis_view(arr: Array, axis) -> tuple:
    """(outer, length, inner, axis) of reducing `arr` along `axis` (None: every element)."""
    if axis is None:
        return 1, arr.size, 1, None
    shape = arr.shape if arr.ndim else (1,)
    axis = normalize_axis(axis, builtins.max(arr.ndim, 1))
    outer, length, inner = split_shape(shape, axis)
    return outer, length, inner, axis


def _prepare(arr: Array, axis, keepdims: bool, what: str, dtypes=EXACT_DTYPES):
    """(outer, length, inner, result shape) of a call, its arguments checked."""
    if arr.dtype not in dtypes:
        names = ", ".join(str(d) for d in dtypes)
        raise TypeError(f"exact {what} take {names} arrays, not {arr.dtype}; "
                        "convert the input first, e.g. x.astype(np.float64)")
    keepdims = check_flag("keepdims", keepdims)
    outer, length, inner, axis = axis_view(arr, axis)
    if axis is None:
        shape = (1,) * arr.ndim if keepdims else ()
    else:
        shape = result_shape(arr.shape, axis, keepdims) if arr.ndim else ()
        if outer * inner * length:
            _check_binding(arr)
    return outer, length, inner, shape


def _run(arr: Array, recorders: list) -> list:
    """Run the recorders on arr in one submit; each one's (integers, counts)."""
    sums = [empty((r.sums_words,), r.sums_dtype, arr.device) for r in recorders]

    def record(p, x, *outs):
        for r, out in zip(recorders, outs):
            r.record(p, x, out)

    words = run_recorded(arr.device, tuple(recorders), (arr, *sums), record, "exact sum",
                         reads=[(s.buffer, 0, s.nbytes) for s in sums])
    return [r.totals(w) for r, w in zip(recorders, words)]


def exact_reduce(arr: Array, axis, keepdims: bool, mean: bool) -> Array:
    """The correctly rounded sum (or mean) of `arr` over every element (axis None) or along
    one axis (an int), with numpy's shapes (keepdims included): float64 and float32 in
    their dtype; the mean of integers in float64, as numpy's."""
    dtypes = STATISTICS_DTYPES if mean else EXACT_DTYPES
    outer, length, inner, shape = _prepare(arr, axis, keepdims, "means" if mean else "sums", dtypes)
    layout = LAYOUTS[arr.dtype]
    rdt = layout.float.dtype
    if outer * inner == 0:
        return empty(shape, rdt, arr.device)
    if length == 0:
        if mean:
            warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
        return asarray(np.full(shape, np.nan if mean else 0.0, rdt))
    ((totals, counts),) = _run(arr, [exact_sum_recorder(arr.device, arr.dtype, outer, length, inner)])
    values = [special(*counts[r]) for r in range(len(totals))]
    values = [round_ratio(t, length if mean else 1, layout.float, layout.unit) if v is None else v
              for t, v in zip(totals, values)]
    return asarray(np.array(values, np.float64).astype(rdt).reshape(shape))  # exact: each is a rdt value


def exact_sum(arr: Array, axis=None, keepdims: bool = False) -> Array:
    """The correctly rounded exact sum (wgprim.sum of float64; of float32 with exact=True)."""
    return exact_reduce(arr, axis, keepdims, mean=False)


def exact_variance(arr: Array, axis, keepdims: bool, ddof, root: bool) -> Array:
    """The correctly rounded variance (root: standard deviation) of `arr` (float64 and
    float32 in their dtype, integers in float64), from the exact sums of x and x^2:
    (n S2 - S1^2) / (n (n - ddof)), rounded once."""
    outer, length, inner, shape = _prepare(arr, axis, keepdims, "variances", STATISTICS_DTYPES)
    layout = LAYOUTS[arr.dtype]
    rdt = layout.float.dtype
    if outer * inner == 0:
        return empty(shape, rdt, arr.device)
    dof = length - Fraction(ddof)  # numpy takes a float ddof too: exact as a Fraction
    if dof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)  # the caller of var
    if length == 0:
        return asarray(np.full(shape, np.nan, rdt))
    (s1, counts), (s2, _) = _run(arr, [exact_sum_recorder(arr.device, arr.dtype, outer, length, inner),
                                       exact_sum_recorder(arr.device, arr.dtype, outer, length, inner, True)])
    values = []
    for r in range(len(s1)):
        # n^2 var in units^2 (never negative), over n (n - ddof) as integers
        num = (length * s2[r] - s1[r] * s1[r]) * dof.denominator
        den = length * dof.numerator
        if special(*counts[r]) is not None:
            values.append(np.nan)  # inf - inf: numpy's too
        elif den <= 0:
            values.append(np.nan if num == 0 else np.inf)  # numpy divides by max(n - ddof, 0)
        elif root:
            values.append(round_sqrt_ratio(num, den, layout.float, 2 * layout.unit))
        else:
            values.append(round_ratio(num, den, layout.float, 2 * layout.unit))
    return asarray(np.array(values, np.float64).astype(rdt).reshape(shape))
