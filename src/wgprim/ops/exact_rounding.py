"""The host's part of the exact sums (ops/exact_sum.py): the integers the GPU's digit sums
stand for, and one rounding of an exact rational (or of its square root) to float64 or
float32, to nearest even, subnormals and overflow included. Python integers throughout:
exact, and cheap beside the GPU's part (a few thousand bits per result)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DIGIT_BITS = 16


@dataclass(frozen=True)
class FloatFormat:
    """A binary float format, as the rounding needs it."""

    dtype: np.dtype
    unit: int  # the smallest subnormal is 2^unit; every value is an integer times it
    mantissa: int  # significand bits, the hidden one included
    max_exponent: int  # the largest finite value is below 2^(max_exponent + 1)


FLOAT64 = FloatFormat(np.dtype(np.float64), -1074, 53, 1023)
FLOAT32 = FloatFormat(np.dtype(np.float32), -149, 24, 127)


def exact_integers(digits: np.ndarray) -> list[int]:
    """Each row of `digits` (int64 sums of signed 16-bit digits, digit d weighing
    2^(16 d)) as one Python integer, exactly."""
    rows, count = digits.shape
    carry = np.zeros(rows, np.int64)
    clean = np.empty((rows, count), np.uint16)
    for d in range(count):  # vectorized over rows; every value stays below 2^49
        v = digits[:, d] + carry
        clean[:, d] = v & 0xFFFF
        carry = v >> DIGIT_BITS  # floor: the digit left is in [0, 2^16)
    top = count * DIGIT_BITS
    return [int.from_bytes(clean[r].tobytes(), "little") + (int(carry[r]) << top) for r in range(rows)]


def round_ratio(num: int, den: int, fmt: FloatFormat, unit: int | None = None) -> float:
    """num / den * 2^unit (unit: fmt.unit unless given; den > 0) rounded to the nearest
    value of the format, ties to even, as a Python float holding exactly that value
    (±inf past the largest finite one; a result that underflows keeps num's sign)."""
    unit = fmt.unit if unit is None else unit
    negative, num = num < 0, abs(num)
    if num == 0:
        return -0.0 if negative else 0.0
    # k = floor(log2(num / den)); the result's last bit weighs 2^last.
    k = num.bit_length() - den.bit_length()
    if (num << max(0, -k)) < (den << max(0, k)):
        k -= 1
    last = max(fmt.unit, k + unit - fmt.mantissa + 1)
    shift = unit - last  # q = round(num / den * 2^shift)
    n, d = (num << shift, den) if shift >= 0 else (num, den << -shift)
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    if q.bit_length() + last > fmt.max_exponent + 1:
        value = math.inf
    else:
        value = math.ldexp(float(q), last)  # q <= 2^mantissa and the value is representable: exact
    return -value if negative else value


def round_sqrt_ratio(num: int, den: int, fmt: FloatFormat, unit: int) -> float:
    """sqrt(num / den * 2^unit) for num >= 0, den > 0 and an even unit, correctly rounded
    (ties to even) into the format: from the integer square root with 64 bits to spare and
    a sticky bit for an inexact root."""
    if num == 0:
        return 0.0
    spare = 64 + max(0, (den.bit_length() - num.bit_length()) // 2 + 1)
    scaled = (num << (2 * spare)) // den
    root = math.isqrt(scaled)  # floor(sqrt(num / den) * 2^spare)
    inexact = root * root * den != num << (2 * spare)
    # 2 * root + inexact halves of 2^-spare: strictly between root and root + 1 when inexact,
    # which never meets a rounding boundary (those are 64 bits further up).
    return round_ratio(2 * root + int(inexact), 1, fmt, unit // 2 - spare - 1)


def special(pos_inf: int, neg_inf: int, nan: int) -> float | None:
    """IEEE's sum of the infinities and NaNs counted (None: there are none)."""
    if nan or (pos_inf and neg_inf):
        return math.nan
    if pos_inf or neg_inf:
        return math.inf if pos_inf else -math.inf
    return None
