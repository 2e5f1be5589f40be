"""Operators and dtype specialization: the one place where kernels get their types.

Kernel files (`kernels/*.wgsl`) are written against a few names that this module
defines in a WGSL *preamble* put in front of the file:

    alias T = ...;                  the element type of the input
    alias A = ...;                  the accumulator type (T, or a struct for argmin/argmax)
    alias R = ...;                  the result type written by the last step
    fn identity() -> A              the monoid's identity
    fn combine(a: A, b: A) -> A     the monoid's associative operation
    fn lift(x: T, i: u32) -> A      element (and its index) -> accumulator
    fn finish(a: A) -> R            accumulator -> result

Float and 64-bit preambles also carry the order keys (ops/order_key.py: key, from_key,
is_nan) and min_nan / max_nan; min/max/argmin/argmax reductions accumulate order keys
(min_key / max_key for min and max, so that the result is an input's own bits).

64-bit dtypes (uint64, int64, float64): WGSL has no 64-bit type, so T is vec2<u32> (low
word, high word) and integer arithmetic is kernels/int64.wgsl's (add64, mul64: wrapping
modulo 2^64 as numpy). float64 has min, max, argmin, argmax (and scans by min and max),
which only compare; float64 sums are exact (ops/exact_sum.py, reached through api/reduce.py
before any preamble is made); float64 products and sum scans raise TypeError (no float64
arithmetic in WGSL; FLOAT64_ARITHMETIC says what works instead), and so do custom operators (Monoid) on
64-bit dtypes. Kernels that
combine across the workgroup add the block scan or block reduce (ops/block_scan.py)
bound to this combine.

Reductions may combine in any order, so a reduce operator must be associative and
commutative; scans keep the order, so a scan operator only needs to be associative.
Identities are built at run time from their bit pattern because WGSL forbids constant
expressions that evaluate to infinity (the identity of min/max on floats).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.errors import OperatorError
from wgprim.ops import order_key
from wgprim.pipelines import kernel_source

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))
U64, I64, F64 = (np.dtype(t) for t in (np.uint64, np.int64, np.float64))
INTEGER = (U32, I32)
NUMERIC = (U32, I32, F32, F16)
INTEGER64 = (U64, I64)
WIDE = (U64, I64, F64)  # vec2<u32> in kernels
REDUCIBLE = NUMERIC + WIDE  # what reduce and scan take (which operator on which: BUILTIN)

WGSL_TYPE = {U32: "u32", I32: "i32", F32: "f32", F16: "f16", U64: "vec2<u32>", I64: "vec2<u32>", F64: "vec2<u32>"}

FLOAT64_ARITHMETIC = (
    "WGSL has no float64 type; float64 sums, means, variances and standard deviations are exact in "
    "integer arithmetic (wgprim.sum, wgprim.mean, wgprim.var, wgprim.std and wgprim.reduce(x, 'sum'), "
    "with axis= and keepdims=: correctly rounded, docs/exact.md), and float64 min, max, argmin, argmax, "
    "scans by min and max, "
    "sorts and searches work on the GPU; other float64 arithmetic (prod, cumsum, cumulative_sum, "
    "ReducePlan, segment sums, custom operators) is not built yet: use x.astype(np.float32) (within "
    "wgprim.ops.reduce.sum_error_bound, wgprim.ops.scan.cumsum_error_bound) or numpy"
)


@dataclass(frozen=True)
class Monoid:
    """An associative operation on one dtype: a WGSL expression of `a` and `b`, and its
    identity (a Python number). Example: `Monoid("max(a, b)", identity=0)` for u32.

    Checked when made (one expression, no comments; a real-number identity) and on first
    use with each dtype (the identity is exactly representable in it; the expression
    compiles as WGSL on the device, naga's message reported). Mistakes raise OperatorError,
    a ValueError (and a WgprimError) naming the Monoid."""

    combine: str
    identity: float | int
    name: str = "custom"

    def __post_init__(self):
        if not isinstance(self.combine, str) or not self.combine.strip():
            raise OperatorError(f"{self._what()}: combine must be a WGSL expression of `a` and `b`, got {self.combine!r}")
        if any(c in self.combine for c in ";{}"):
            raise OperatorError(f"{self._what()}: a combine expression is one WGSL expression of `a` and `b` (no ';', '{{' or '}}')")
        if "//" in self.combine or "/*" in self.combine:
            raise OperatorError(f"{self._what()}: the combine expression must not contain a comment ('//' or '/*')")
        # The shader compiler parses recursively: an expression thousands of parentheses deep
        # or tens of thousands of terms long overflows its stack and kills the process
        # (3000 and 20,000 did). Bounded far below that, and far above any real operator.
        depth = _nesting(self.combine)
        if depth > MAX_COMBINE_NESTING:
            raise OperatorError(f"Monoid {self.name!r}: the combine expression nests {depth} levels of "
                                f"parentheses or brackets; at most {MAX_COMBINE_NESTING} reach the shader compiler")
        if len(self.combine) > MAX_COMBINE_LENGTH:
            raise OperatorError(f"Monoid {self.name!r}: the combine expression has {len(self.combine)} characters; "
                                f"at most {MAX_COMBINE_LENGTH} reach the shader compiler (write it shorter, e.g. "
                                "with WGSL built-ins such as max, min, select)")
        real = isinstance(self.identity, (int, float, np.integer, np.floating))
        if not real or isinstance(self.identity, (bool, np.bool_)):
            raise OperatorError(
                f"{self._what()}: identity must be a number (int or float, e.g. 0 or -math.inf), "
                f"got {self.identity!r}; wgprim writes it in the operand's WGSL type itself"
            )

    def _what(self) -> str:
        return f"Monoid {self.name!r} ({self.combine!r})"

    def validate(self, dt: np.dtype) -> None:
        """Check the identity against `dt` and compile the expression once per (dtype,
        device); ValueError naming this Monoid when either is wrong."""
        from wgprim.device import get_device

        device = get_device()
        key = (self, dt.str, id(device.device))
        if key in _VALIDATED:
            return
        try:
            bits_of(self.identity, dt)
            if dt.kind == "f" and np.isfinite(self.identity) and not np.isfinite(np.array(self.identity).astype(dt)):
                raise ValueError(f"identity {self.identity!r} overflows {dt}")
        except (ValueError, OverflowError, TypeError) as error:
            raise OperatorError(f"{self._what()} cannot be used with {dt}: {error}") from None
        _VALIDATED.add(key)  # preamble() below resolves this Monoid again
        try:
            code = preamble(self, dt, for_scan=True) + "fn monoid_check() -> A { return combine(identity(), identity()); }\n"
            device.device.create_shader_module(label=f"monoid {self.name}", code=code)
        except Exception as error:
            _VALIDATED.discard(key)
            message = str(error).strip()
            raise OperatorError(
                f"{self._what()}: the combine expression does not compile as WGSL for {dt} "
                f"(operands `a` and `b` of type {WGSL_TYPE[dt]}):\n{message}"
            ) from None


MAX_COMBINE_LENGTH = 4096  # characters of a Monoid's combine expression
MAX_COMBINE_NESTING = 64  # levels of ( ) and [ ] in it


def _nesting(text: str) -> int:
    """The deepest nesting of parentheses and brackets in `text`."""
    depth = deepest = 0
    for c in text:
        if c in "([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in ")]":
            depth -= 1
    return deepest


# (Monoid, dtype, device) already checked by Monoid.validate.
_VALIDATED: set = set()


def _max_of(dt: np.dtype):
    return np.inf if dt.kind == "f" else int(np.iinfo(dt).max)


def _min_of(dt: np.dtype):
    return -np.inf if dt.kind == "f" else int(np.iinfo(dt).min)


# name -> (combine expression for floats, for integers, identity(dtype), dtypes)
BUILTIN = {
    "sum": ("a + b", "a + b", lambda dt: 0, NUMERIC + INTEGER64),
    "prod": ("a * b", "a * b", lambda dt: 1, NUMERIC + INTEGER64),
    "min": ("min_nan(a, b)", "min(a, b)", _max_of, REDUCIBLE),
    "max": ("max_nan(a, b)", "max(a, b)", _min_of, REDUCIBLE),
    "bitwise_and": (None, "a & b", lambda dt: -1 if dt.kind == "i" else int(np.iinfo(dt).max), INTEGER + INTEGER64),
    "bitwise_or": (None, "a | b", lambda dt: 0, INTEGER + INTEGER64),
    "bitwise_xor": (None, "a ^ b", lambda dt: 0, INTEGER + INTEGER64),
}
# The same on vec2<u32> (64-bit dtypes): kernels/int64.wgsl's arithmetic, the order keys'
# min and max (min_nan, max_nan: for integers there is no NaN); bitwise operators work on
# both words as they are.
WIDE_COMBINE = {"sum": "add64(a, b)", "prod": "mul64(a, b)", "min": "min_nan(a, b)", "max": "max_nan(a, b)",
                "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a ^ b"}
ARG_OPS = {"argmin": "<", "argmax": ">"}


def bits_of(value, dt: np.dtype) -> int:
    """The bit pattern (as an unsigned int) of `value` stored in dtype `dt`; ValueError when
    `value` is not exactly representable there (an identity must be exact)."""
    if dt.kind in "iu":
        if isinstance(value, float) and not float(value).is_integer() or not np.isfinite(value):
            raise ValueError(f"identity {value!r} is not a {dt} value")
        if not np.iinfo(dt).min <= int(value) <= np.iinfo(dt).max:
            raise ValueError(f"identity {value!r} is outside the range of {dt}")
        return int(value) % (1 << (8 * dt.itemsize))  # two's complement
    host = np.array(value).astype(dt)
    return int(host.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]))


def scalar(value, dt: np.dtype) -> np.ndarray:
    """`value` (exactly representable, as bits_of checks) as a 0-d numpy array of `dt`."""
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return np.array(bits_of(value, dt), dtype=unsigned).view(dt)


def _enables(dt: np.dtype) -> str:
    return "enable f16;\n" if dt == F16 else ""


def _identity_fn(t: str, dt: np.dtype, value) -> str:
    bits = bits_of(value, dt)
    if dt in WIDE:
        return f"fn identity_value() -> {t} {{ return vec2<u32>({bits & 0xFFFFFFFF}u, {bits >> 32}u); }}\n"
    if dt == F16:  # naga has no bitcast between u32 and vec2<f16>: unpack instead
        return f"fn identity_value() -> {t} {{ var bits = {bits}u; return f16(unpack2x16float(bits).x); }}\n"
    return f"fn identity_value() -> {t} {{ var bits = {bits}u; return bitcast<{t}>(bits); }}\n"


# min/max for floats and 64-bit values (scans; custom operators may use them too): NaN
# propagates, and the comparison is the order key's (kernels/order_key.wgsl), exact whatever
# the driver does with denormals; of two equal values (-0.0 and +0.0 included) the first one
# is kept. 64-bit keys are vec2<u32>, compared by key64_less.
ORDER_HELPERS = """
fn less(a: T, b: T) -> bool { return KEY_LESS; }
fn min_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(b, a)); }
fn max_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(a, b)); }
"""


def _has_order_helpers(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt in WIDE


def _order_helpers(dt: np.dtype) -> str:
    """The order keys and min_nan / max_nan, for the dtypes whose min/max need them."""
    if not _has_order_helpers(dt):
        return ""
    less = "key64_less(key(a), key(b))" if dt in WIDE else "key(a) < key(b)"
    return order_key.preamble(dt) + ORDER_HELPERS.replace("KEY_LESS", less)


_RESOLVED: dict = {}  # (name, dtype, for_scan) -> what resolve returns, for built-in names


def resolve(op, dt: np.dtype, for_scan: bool = False) -> tuple[str, object]:
    """Check that `op` applies to dtype `dt`; return (name, Monoid or arg-op marker)."""
    if isinstance(op, str):
        found = _RESOLVED.get((op, dt, for_scan))
        if found is None:
            found = _RESOLVED[(op, dt, for_scan)] = _resolve(op, dt, for_scan)
        return found
    return _resolve(op, dt, for_scan)


def _resolve(op, dt: np.dtype, for_scan: bool) -> tuple[str, object]:
    if isinstance(op, Monoid):
        if dt in WIDE:
            works = [n for n, spec in BUILTIN.items() if dt in spec[3]] + ([] if for_scan else sorted(ARG_OPS))
            raise TypeError(
                f"custom operators (Monoid) take uint32, int32, float32 or float16 arrays, not {dt}: WGSL "
                f"has no 64-bit type for `a` and `b`. The built-in operators {', '.join(works)} work on {dt}"
            )
        if dt not in NUMERIC:
            raise TypeError(f"custom operators take uint32, int32, float32 or float16 arrays, not {dt}")
        op.validate(dt)
        return op.name, op
    if not isinstance(op, str):
        raise _not_an_operator(op)
    if op in ARG_OPS and not for_scan:
        if dt not in REDUCIBLE:
            raise TypeError(f"{op} takes {', '.join(str(d) for d in REDUCIBLE)} arrays, not {dt}")
        return op, op
    if op not in BUILTIN:
        names = sorted(BUILTIN) + ([] if for_scan else sorted(ARG_OPS))
        raise ValueError(f"unknown operator {op!r}; built-in operators: {', '.join(names)}")
    float_expr, int_expr, identity, dtypes = BUILTIN[op]
    if dt == F64 and op in ("sum", "prod"):
        raise TypeError(f"{'a scan' if for_scan else 'a reduction'} by {op} of float64: {FLOAT64_ARITHMETIC}")
    if dt not in dtypes:
        raise TypeError(f"{op} takes {', '.join(str(d) for d in dtypes)} arrays, not {dt}")
    expr = WIDE_COMBINE[op] if dt in WIDE else float_expr if dt.kind == "f" else int_expr
    return op, Monoid(expr, identity(dt), name=op)


def _not_an_operator(op) -> TypeError:
    return TypeError(f"op must be an operator name or a wgprim.Monoid, not {type(op).__name__}")


def key(op) -> tuple:
    """`op` (a name or a Monoid) as a hashable key that tells operators apart exactly, for
    the lookups of what is built for one (caches.lookup): a Monoid by its expression, name
    and identity as written (Monoid equality takes 0.0 and -0.0, two different identities
    of a float sum, for one). TypeError, as resolve gives, for anything else."""
    if isinstance(op, Monoid):
        return ("monoid", op.combine, op.name, type(op.identity).__name__, repr(op.identity))
    if isinstance(op, str):
        return ("builtin", op)
    raise _not_an_operator(op)


def _keyed_preamble(head: str, name: str, dt: np.dtype) -> str:
    """min/max/argmin/argmax reductions accumulate order keys (ops/order_key.py): one
    integer min/max per element, exact where float compares flush denormals.
    argmin/argmax compare key_for_min / key_for_max: -0.0 == +0.0, and NaN takes the key
    that wins, so it propagates as numpy's does and the first NaN's index comes out.
    min/max reduce min_key / max_key, one-to-one keys (NaN wins, -0.0 below +0.0), and
    decode the winner back to its input bits (kernels/order_key.wgsl states which of
    several NaNs and of ±0). 64-bit keys are vec2<u32>, compared by key64_less."""
    smallest = name in ("min", "argmin")
    pick = "min" if smallest else "max"
    wide = dt in WIDE
    keys = "" if _has_order_helpers(dt) else order_key.preamble(dt)  # else already in head
    if wide:
        loses = "vec2<u32>(0xffffffffu, 0xffffffffu)" if smallest else "vec2<u32>(0u, 0u)"
        first = "key64_less(a, b)" if smallest else "key64_less(b, a)"  # a strictly before b
        equal = "all(a == b)"
        best = f"select(a, b, {'key64_less(b, a)' if smallest else 'key64_less(a, b)'})"
    else:
        loses = "0xffffffffu" if smallest else "0u"
        first = "a < b" if smallest else "a > b"
        equal = "a == b"
        best = f"{pick}(a, b)"
    text = head + keys + f"fn key_first(a: OrderKey, b: OrderKey) -> bool {{ return {first}; }}\n"
    text += f"fn key_equal(a: OrderKey, b: OrderKey) -> bool {{ return {equal}; }}\n"
    if name in ARG_OPS:
        return text + f"""
struct ArgPair {{ v: OrderKey, i: u32 }}
alias A = ArgPair;
alias R = u32;
fn identity() -> A {{ return ArgPair({loses}, 0xffffffffu); }}
fn combine(a: A, b: A) -> A {{
  if (key_first(a.v, b.v) || (key_equal(a.v, b.v) && a.i < b.i)) {{ return a; }}
  return b;
}}
fn lift(x: T, i: u32) -> A {{ return ArgPair(key_for_{pick}(x), i); }}
fn finish(a: A) -> R {{ return a.i; }}
"""
    if dt == F16:
        # f16 has no bitcast in WGSL (naga), so its keys go through f32, whose conversion may
        # drop a NaN's payload (lavapipe's does): accumulate the values themselves, compared
        # by their keys, so that the result is still an input's own bits.
        return text + _identity_fn("f16", dt, np.inf if smallest else -np.inf) + f"""
alias A = T;
alias R = T;
fn identity() -> A {{ return identity_value(); }}
fn combine(a: A, b: A) -> A {{ return select(a, b, key_first({pick}_key(b), {pick}_key(a))); }}
fn lift(x: T, i: u32) -> A {{ return x; }}
fn finish(a: A) -> R {{ return a; }}
"""
    return text + f"""
alias A = OrderKey;
alias R = T;
fn identity() -> A {{ return {loses}; }}
fn combine(a: A, b: A) -> A {{ return {best}; }}
fn lift(x: T, i: u32) -> A {{ return {pick}_key(x); }}
fn finish(a: A) -> R {{ return from_{pick}_key(a); }}
"""


def accumulator_bytes(op, dt: np.dtype) -> int:
    """Bytes of one partial result of a reduction (see preamble): an order key (and an
    index, in a struct aligned to the key) for min/max/argmin/argmax, else an element."""
    name, _ = resolve(op, dt)
    key_bytes = 8 if dt in WIDE else 4
    if name in ARG_OPS:
        return 2 * key_bytes
    return key_bytes if name in ("min", "max") and dt != F16 else dt.itemsize


def preamble(op, dt: np.dtype, for_scan: bool = False) -> str:
    """The WGSL preamble for operator `op` (a name or Monoid) on elements of dtype `dt`:
    for a reduction, or for a scan (where the accumulator must be T itself)."""
    name, monoid = resolve(op, dt, for_scan=for_scan)
    t = WGSL_TYPE[dt]
    head = _enables(dt) + f"alias T = {t};\n" + _order_helpers(dt)
    if not for_scan and (name in ARG_OPS or name in ("min", "max")):
        return _keyed_preamble(head, name, dt)
    return head + _identity_fn(t, dt, monoid.identity) + f"""
alias A = T;
alias R = T;
fn identity() -> A {{ return identity_value(); }}
fn combine(a: A, b: A) -> A {{ return {monoid.combine}; }}
fn lift(x: T, i: u32) -> A {{ return x; }}
fn finish(a: A) -> R {{ return a; }}
"""


def result_dtype(op, dt: np.dtype) -> np.dtype:
    name, _ = resolve(op, dt)
    return U32 if name in ARG_OPS else dt


def identity_value(op, dt: np.dtype):
    """The identity of `op` on `dt` as a numpy scalar (the result of reducing nothing)."""
    name, monoid = resolve(op, dt)
    if name in ARG_OPS:
        raise ValueError(f"{name} of an empty array is undefined")
    return scalar(monoid.identity, dt)


def packet_preamble(dt: np.dtype) -> str:
    """WGSL for after the operator preamble: `alias Packet` (one 16-byte load of elements
    of dt; 8 bytes for f16), `PACKET` (its elements) and the functions that reach them
    (kernels/packet_vec4.wgsl, kernels/packet_pairs.wgsl for 64-bit dtypes)."""
    return kernel_source("packet_pairs" if dt in WIDE else "packet_vec4")


def packet_elements(dt: np.dtype) -> int:
    """PACKET of packet_preamble(dt): elements per load."""
    return 2 if dt in WIDE else 4
