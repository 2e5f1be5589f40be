"""Exact sums of float64 and float32: the correctly rounded value of the exact sum, the
same bits in any order of the input, any chunking and on any device (docs/exact.md). The
front doors: wgprim.sum and reduce (api/reduce.py) and wgprim.mean (api/statistics.py).

Every finite float64 is an integer multiple of 2^-1074 (float32: of 2^-149), so a sum of
them is an integer times that unit, carried exactly in integer words (ExBLAS: Collange,
Defour, Graillat, Iakymchuk, Parallel Computing 49, 2015). No float operation is used on
the GPU, so no compiler reassociation or fused multiply-add can change a bit.

Structure (each arrow a dispatch boundary, the only global sync):
  exact_pieces: workgroup g splits each element of one piece (at most PIECE elements of
    one row) into 16-bit digits by integer operations and adds them into SLOTS signed i32
    words in workgroup memory (atomicAdd: exact and order-free); it writes them, as they
    are, to its own place. A digit gains less than 2^16 per element and a piece has at
    most 2^15 elements, so no word overflows and no carry is needed.
  -> exact_combine_wide (rows of many pieces) or exact_combine_rows (few pieces): each
    row's pieces added slot by slot into 64-bit integers (exact below 2^32 pieces).
  -> the host reads rows * SLOTS int64 words, propagates the carries (numpy, vectorized)
    and rounds each row's exact integer once, to nearest even (Python integers).
Infinities and NaNs are counted (slots DIGITS.. DIGITS + 2), never added: any NaN, or
+inf with -inf, gives NaN; otherwise an infinity gives itself. No partial sum can
overflow, so the result is inf only where the exact sum rounds to inf. A zero sum is +0.0,
as numpy's (its sums start from +0.0, so all -0.0 gives +0.0 too).
"""
from __future__ import annotations

import builtins
import math
import warnings
from dataclasses import dataclass

import numpy as np

from wgprim.array import Array, asarray, empty
from wgprim.caches import lookup
from wgprim.ops.axis import _check_binding, normalize_axis, result_shape, split_shape
from wgprim.ops.common import Chunk, check_flag, chunks
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.recordings import run_recorded

WG = 256
DIGIT_BITS = 16
PIECE = 1 << 15  # elements per workgroup of exact_pieces: < 2^31 / 2^16 keeps an i32 digit exact
WIDE_PIECES = 16  # rows of more pieces than this are combined by a workgroup per slot
COUNTS = 3  # +inf, -inf, NaN after the digits


@dataclass(frozen=True)
class Format:
    """What the exact sum needs to know of a float format."""

    kernel: str  # kernels/<kernel>.wgsl: E, DIGITS and split()
    digits: int  # DIGITS there
    unit: int  # every value is an integer times 2^unit
    mantissa: int  # significand bits, the hidden one included
    max_exponent: int  # the largest finite value is below 2^(max_exponent + 1)

    @property
    def slots(self) -> int:
        return self.digits + COUNTS


F64, F32 = np.dtype(np.float64), np.dtype(np.float32)
EXACT_DTYPES = (F64, F32)
FORMATS = {
    F64: Format("exact_f64", 132, -1074, 53, 1023),
    F32: Format("exact_f32", 20, -149, 24, 127),
}


def pieces_of(length: int) -> int:
    return max(1, -(-length // PIECE))


class ExactSumRecorder:
    """The exact sum of a (outer, length, inner) view along its middle axis, built once
    for (device, dtype, shape): `record(program, x, sums)` writes rows * slots int64
    words (rows = outer * inner) into the Array `sums`; `finish()` rounds them."""

    def __init__(self, dev, dt: np.dtype, outer: int, length: int, inner: int):
        self.fmt = FORMATS[dt]
        self.outer, self.length, self.inner = outer, length, inner
        self.rows = outer * inner
        flat = self.rows == 1
        # A long row is split into windows of whole pieces that each fit one binding;
        # an axis reduction binds the whole array once (the caller checks it fits).
        self.chunks = chunks(length, dt.itemsize, PIECE, dev) if flat else [Chunk(0, outer * length * inner)]
        self.chunk_pieces = [pieces_of(c.count) for c in self.chunks] if flat else [pieces_of(length)]
        self.pieces = sum(self.chunk_pieces)  # per row
        files = ("exact_split", self.fmt.kernel, "exact_sum")
        self.wide = self.pieces > WIDE_PIECES
        combine = "exact_combine_wide" if self.wide else "exact_combine_rows"
        self.pipes = {e: get_pipeline(dev, files, "", e, {"WG": WG}) for e in ("exact_pieces", combine)}
        self.combine = self.pipes[combine]

    @property
    def sums_words(self) -> int:
        """The int64 words record() writes (two u32 each)."""
        return self.rows * self.fmt.slots

    def record(self, p: Program, x: Array, sums: Array) -> None:
        slots = self.fmt.slots
        pieces = p.temp(self.rows * self.pieces * slots * 4)
        first = 0
        for c, count in zip(self.chunks, self.chunk_pieces):
            length = c.count if self.rows == 1 else self.length
            groups = self.rows * count
            params = p.params(length, self.inner, count, PIECE, groups, first)
            p.dispatch("exact sum pieces", self.pipes["exact_pieces"], {0: params, 1: c.view(x), 2: pieces}, groups)
            first += groups
        params = p.params(0, 0, self.pieces, PIECE, self.sums_words, 0)
        groups = self.sums_words if self.wide else -(-self.sums_words // WG)
        p.dispatch("exact sum combine", self.combine, {0: params, 3: pieces, 4: sums.buffer}, groups)

    def finish(self, words: np.ndarray, divisor: int = 1) -> np.ndarray:
        """The rows' sums (divided by `divisor`: a mean), each rounded once, as a 1-D
        array of the format's dtype."""
        table = words.view(np.int64).reshape(self.rows, self.fmt.slots)
        return round_rows(table, self.fmt, divisor)


def exact_sum_recorder(device, dt: np.dtype, outer: int, length: int, inner: int) -> ExactSumRecorder:
    """The ExactSumRecorder of (dt, outer, length, inner) on `device`, looked up."""
    key = ("exact sum", dt, outer, length, inner, PIECE, WIDE_PIECES, device.max_binding_bytes)
    return lookup(device, key, lambda: ExactSumRecorder(device, dt, outer, length, inner))


# -- one call ---------------------------------------------------------------------------

def axis_view(arr: Array, axis) -> tuple:
    """(outer, length, inner, result shape) of reducing `arr` along `axis` (None: all),
    keepdims applied by the caller."""
    if axis is None:
        return 1, arr.size, 1, None
    shape = arr.shape if arr.ndim else (1,)
    axis = normalize_axis(axis, builtins.max(arr.ndim, 1))
    outer, length, inner = split_shape(shape, axis)
    return outer, length, inner, axis


def exact_reduce(arr: Array, axis, keepdims: bool, mean: bool) -> Array:
    """The exactly rounded sum (or mean) of float64 or float32 `arr` over every element
    (axis None) or along one axis (an int), with numpy's shapes (keepdims included)."""
    if arr.dtype not in EXACT_DTYPES:
        raise TypeError(f"exact sums and means take float64 or float32 arrays, not {arr.dtype}; "
                        "convert the input first, e.g. x.astype(np.float64)")
    keepdims = check_flag("keepdims", keepdims)
    outer, length, inner, axis = axis_view(arr, axis)
    if axis is None:
        shape = (1,) * arr.ndim if keepdims else ()
    else:
        shape = result_shape(arr.shape, axis, keepdims) if arr.ndim else ()
    if outer * inner == 0:
        return empty(shape, arr.dtype, arr.device)
    if length == 0:
        if mean:
            warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
        return asarray(np.full(shape, np.nan if mean else 0.0, arr.dtype))
    if axis is not None:
        _check_binding(arr)
    recorder = exact_sum_recorder(arr.device, arr.dtype, outer, length, inner)
    sums = empty((recorder.sums_words,), np.int64, arr.device)
    (words,) = run_recorded(arr.device, (recorder,), (arr, sums), recorder.record, "exact sum",
                            reads=[(sums.buffer, 0, sums.nbytes)])
    values = recorder.finish(words, length if mean else 1)
    return asarray(values.reshape(shape))


def exact_sum(arr: Array, axis=None, keepdims: bool = False) -> Array:
    """The correctly rounded exact sum (wgprim.sum of float64; of float32 with exact=True)."""
    return exact_reduce(arr, axis, keepdims, mean=False)


# -- the host's part: carries and one rounding ---------------------------------------

def exact_integers(digits: np.ndarray) -> list[int]:
    """Each row of `digits` (int64 sums of signed 16-bit digits, digit d weighing
    2^(16 d)) as one Python integer, exactly."""
    rows, count = digits.shape
    carry = np.zeros(rows, np.int64)
    clean = np.empty((rows, count), np.uint16)
    for d in range(count):  # vectorized over rows; every value stays below 2^49
        v = digits[:, d] + carry
        clean[:, d] = v & 0xFFFF
        carry = v >> DIGIT_BITS  # floor: the low digit is left in [0, 2^16)
    top = count * DIGIT_BITS
    return [int.from_bytes(clean[r].tobytes(), "little") + (int(carry[r]) << top) for r in range(rows)]


def round_ratio(num: int, den: int, fmt: Format) -> float:
    """num / den * 2^fmt.unit rounded to the nearest value of the format, ties to even
    (subnormals and overflow to inf included), as a Python float (exactly that value)."""
    if num == 0:
        return 0.0
    negative, num = num < 0, abs(num)
    # k = floor(log2(num / den)); the result's last bit sits at 2^e units, e >= 0.
    k = num.bit_length() - den.bit_length()
    if (num << max(0, -k)) < (den << max(0, k)):
        k -= 1
    e = max(0, k - fmt.mantissa + 1)
    q, r = divmod(num, den << e)
    twice = 2 * r
    if twice > den << e or (twice == den << e and q & 1):
        q += 1
    if q.bit_length() + e + fmt.unit > fmt.max_exponent + 1:
        value = math.inf
    else:
        value = math.ldexp(float(q), e + fmt.unit)  # q < 2^53 and the value is representable: exact
    return -value if negative else value


def round_rows(table: np.ndarray, fmt: Format, divisor: int = 1) -> np.ndarray:
    """The rounded sums (divided by `divisor`) of rows of slots (digits, then counts)."""
    dt = F64 if fmt is FORMATS[F64] else F32
    counts = table[:, fmt.digits:]
    exact = exact_integers(table[:, :fmt.digits])
    out = np.empty(len(exact), np.float64)
    for r, total in enumerate(exact):
        pos, neg, nan = (int(c) for c in counts[r])
        if nan or (pos and neg):
            out[r] = math.nan
        elif pos or neg:
            out[r] = math.inf if pos else -math.inf
        else:
            out[r] = round_ratio(total, divisor, fmt)
    return out.astype(dt)  # exact: each value is one of dt's
