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

Float preambles also carry the order keys (ops/order_key.py: key, from_key, is_nan) and
min_nan / max_nan; min/max/argmin/argmax reductions accumulate order keys. Kernels that
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

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))
INTEGER = (U32, I32)
NUMERIC = (U32, I32, F32, F16)

WGSL_TYPE = {U32: "u32", I32: "i32", F32: "f32", F16: "f16"}


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
    "sum": ("a + b", "a + b", lambda dt: 0, NUMERIC),
    "prod": ("a * b", "a * b", lambda dt: 1, NUMERIC),
    "min": ("min_nan(a, b)", "min(a, b)", _max_of, NUMERIC),
    "max": ("max_nan(a, b)", "max(a, b)", _min_of, NUMERIC),
    "bitwise_and": (None, "a & b", lambda dt: -1 if dt.kind == "i" else 0xFFFFFFFF, INTEGER),
    "bitwise_or": (None, "a | b", lambda dt: 0, INTEGER),
    "bitwise_xor": (None, "a ^ b", lambda dt: 0, INTEGER),
}
ARG_OPS = {"argmin": "<", "argmax": ">"}


def bits_of(value, dt: np.dtype) -> int:
    """The bit pattern (as an unsigned int) of `value` stored in dtype `dt`; ValueError when
    `value` is not exactly representable there (an identity must be exact)."""
    if dt.kind in "iu":
        if isinstance(value, float) and not float(value).is_integer() or not np.isfinite(value):
            raise ValueError(f"identity {value!r} is not a {dt} value")
        if not np.iinfo(dt).min <= int(value) <= np.iinfo(dt).max:
            raise ValueError(f"identity {value!r} is outside the range of {dt}")
    host = np.array(value).astype(dt) if dt.kind == "f" else np.array(int(value)).astype(np.int64).astype(dt)
    return int(host.view(np.uint16 if dt.itemsize == 2 else np.uint32))


def _enables(dt: np.dtype) -> str:
    return "enable f16;\n" if dt == F16 else ""


def _identity_fn(t: str, dt: np.dtype, value) -> str:
    bits = bits_of(value, dt)
    if dt == F16:  # naga has no bitcast between u32 and vec2<f16>: unpack instead
        return f"fn identity_value() -> {t} {{ var bits = {bits}u; return f16(unpack2x16float(bits).x); }}\n"
    return f"fn identity_value() -> {t} {{ var bits = {bits}u; return bitcast<{t}>(bits); }}\n"


# min/max for floats (scans; custom operators may use them too): NaN propagates, and the
# comparison is the order key's (kernels/order_key.wgsl), exact whatever the driver does
# with denormals; of two equal values (-0.0 and +0.0 included) the first one is kept.
FLOAT_HELPERS = """
fn less(a: T, b: T) -> bool { return key(a) < key(b); }
fn min_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(b, a)); }
fn max_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(a, b)); }
"""


def _float_helpers(dt: np.dtype) -> str:
    if dt.kind != "f":
        return ""
    return order_key.preamble(dt) + FLOAT_HELPERS


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
        if dt not in NUMERIC:
            raise TypeError(f"custom operators take uint32, int32, float32 or float16 arrays, not {dt}")
        op.validate(dt)
        return op.name, op
    if not isinstance(op, str):
        raise _not_an_operator(op)
    if op in ARG_OPS and not for_scan:
        if dt not in NUMERIC:
            raise TypeError(f"{op} takes uint32, int32, float32 or float16 arrays, not {dt}")
        return op, op
    if op not in BUILTIN:
        names = sorted(BUILTIN) + ([] if for_scan else sorted(ARG_OPS))
        raise ValueError(f"unknown operator {op!r}; built-in operators: {', '.join(names)}")
    float_expr, int_expr, identity, dtypes = BUILTIN[op]
    if dt not in dtypes:
        raise TypeError(f"{op} takes {', '.join(str(d) for d in dtypes)} arrays, not {dt}")
    expr = float_expr if dt.kind == "f" else int_expr
    return op, Monoid(expr, identity(dt), name=op)


def _not_an_operator(op) -> TypeError:
    return TypeError(f"op must be an operator name or a wgprim.Monoid, not {type(op).__name__}")


def key(op) -> tuple:
    """`op` (a name or a Monoid) as a hashable key that tells operators apart exactly, for
    the lookups of what is built for one (program.lookup): a Monoid by its expression, name
    and identity as written (Monoid equality takes 0.0 and -0.0, two different identities
    of a float sum, for one). TypeError, as resolve gives, for anything else."""
    if isinstance(op, Monoid):
        return ("monoid", op.combine, op.name, type(op.identity).__name__, repr(op.identity))
    if isinstance(op, str):
        return ("builtin", op)
    raise _not_an_operator(op)


def _keyed_preamble(head: str, name: str, dt: np.dtype) -> str:
    """min/max/argmin/argmax reductions accumulate order keys (ops/order_key.py): one
    integer min/max per element, exact where float compares flush denormals, -0.0 == +0.0.
    NaN takes the key that wins (key_for_min / key_for_max), so it propagates as numpy's
    does and argmin/argmax return the first NaN."""
    smallest = name in ("min", "argmin")
    loses = "0xffffffffu" if smallest else "0u"
    pick = "min" if smallest else "max"
    better = "<" if smallest else ">"
    keys = "" if dt.kind == "f" else order_key.preamble(dt)  # floats: already in head
    text = head + keys + f"fn lift_key(x: T) -> u32 {{ return key_for_{pick}(x); }}\n"
    if name in ARG_OPS:
        return text + f"""
struct ArgPair {{ v: u32, i: u32 }}
alias A = ArgPair;
alias R = u32;
fn identity() -> A {{ return ArgPair({loses}, 0xffffffffu); }}
fn combine(a: A, b: A) -> A {{
  if (a.v {better} b.v || (a.v == b.v && a.i < b.i)) {{ return a; }}
  return b;
}}
fn lift(x: T, i: u32) -> A {{ return ArgPair(lift_key(x), i); }}
fn finish(a: A) -> R {{ return a.i; }}
"""
    return text + f"""
alias A = u32;
alias R = T;
fn identity() -> A {{ return {loses}; }}
fn combine(a: A, b: A) -> A {{ return {pick}(a, b); }}
fn lift(x: T, i: u32) -> A {{ return lift_key(x); }}
fn finish(a: A) -> R {{ return from_key(a); }}
"""


def accumulator_bytes(op, dt: np.dtype) -> int:
    """Bytes of one partial result of a reduction (see preamble)."""
    name, _ = resolve(op, dt)
    if name in ARG_OPS:
        return 8
    return 4 if name in ("min", "max") else dt.itemsize


def preamble(op, dt: np.dtype, for_scan: bool = False) -> str:
    """The WGSL preamble for operator `op` (a name or Monoid) on elements of dtype `dt`:
    for a reduction, or for a scan (where the accumulator must be T itself)."""
    name, monoid = resolve(op, dt, for_scan=for_scan)
    t = WGSL_TYPE[dt]
    head = _enables(dt) + f"alias T = {t};\n" + _float_helpers(dt)
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
    return np.array(monoid.identity).astype(dt) if dt.kind == "f" else np.array(int(monoid.identity)).astype(np.int64).astype(dt)
