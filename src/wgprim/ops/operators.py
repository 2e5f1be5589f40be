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

Reductions may combine in any order, so a reduce operator must be associative and
commutative; scans keep the order, so a scan operator only needs to be associative.
Identities are built at run time from their bit pattern because WGSL forbids constant
expressions that evaluate to infinity (the identity of min/max on floats).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))
INTEGER = (U32, I32)
NUMERIC = (U32, I32, F32, F16)

WGSL_TYPE = {U32: "u32", I32: "i32", F32: "f32", F16: "f16"}


@dataclass(frozen=True)
class Monoid:
    """An associative operation on one dtype: a WGSL expression of `a` and `b`, and its
    identity (a Python number). Example: `Monoid("max(a, b)", identity=0)` for u32."""

    combine: str
    identity: float | int
    name: str = "custom"

    def __post_init__(self):
        if any(c in self.combine for c in ";{}"):
            raise ValueError("a combine expression is one WGSL expression of `a` and `b` (no ';', '{' or '}')")


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
    """The bit pattern (as an unsigned int) of `value` stored in dtype `dt`."""
    host = np.array(value).astype(dt) if dt.kind == "f" else np.array(int(value)).astype(np.int64).astype(dt)
    return int(host.view(np.uint16 if dt.itemsize == 2 else np.uint32))


def _enables(dt: np.dtype) -> str:
    return "enable f16;\n" if dt == F16 else ""


def _identity_fn(t: str, dt: np.dtype, value) -> str:
    bits = bits_of(value, dt)
    if dt == F16:  # naga has no bitcast between u32 and vec2<f16>: unpack instead
        return f"fn identity_value() -> {t} {{ var bits = {bits}u; return f16(unpack2x16float(bits).x); }}\n"
    return f"fn identity_value() -> {t} {{ var bits = {bits}u; return bitcast<{t}>(bits); }}\n"


FLOAT_HELPERS = """
fn is_nan(x: T) -> bool { return (bitcast_bits(x) & NAN_MASK) > INF_BITS; }
// Comparisons go through an order-preserving u32 key, built from the bits: some drivers
// flush denormals to zero in float compares (an H200 does), numpy does not. -0.0 and
// +0.0 get the same key (they are equal numbers).
fn order_key(x: T) -> u32 {
  var bits = bitcast_bits32(x);
  if (bits == 0x80000000u) { bits = 0u; }
  return select(bits | 0x80000000u, ~bits, (bits >> 31u) == 1u);
}
fn less(a: T, b: T) -> bool { return order_key(a) < order_key(b); }
fn min_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(b, a)); }
fn max_nan(a: T, b: T) -> T { if (is_nan(a)) { return a; } if (is_nan(b)) { return b; } return select(a, b, less(a, b)); }
"""
BITS_F32 = (
    "const NAN_MASK = 0x7fffffffu;\nconst INF_BITS = 0x7f800000u;\n"
    "fn bitcast_bits(x: f32) -> u32 { return bitcast<u32>(x); }\n"
    "fn bitcast_bits32(x: f32) -> u32 { return bitcast<u32>(x); }\n"
)
# f16 keys: its f32 value (exact, f16 denormals are normal f32 numbers).
BITS_F16 = (
    "const NAN_MASK = 0x7fffu;\nconst INF_BITS = 0x7c00u;\n"
    "fn bitcast_bits(x: f16) -> u32 { return pack2x16float(vec2<f32>(f32(x), 0.0)) & 0xffffu; }\n"
    "fn bitcast_bits32(x: f16) -> u32 { return bitcast<u32>(f32(x)); }\n"
)


def _float_helpers(dt: np.dtype) -> str:
    if dt.kind != "f":
        return ""
    return (BITS_F16 if dt == F16 else BITS_F32) + FLOAT_HELPERS


def resolve(op, dt: np.dtype, for_scan: bool = False) -> tuple[str, object]:
    """Check that `op` applies to dtype `dt`; return (name, Monoid or arg-op marker)."""
    if isinstance(op, Monoid):
        if dt not in NUMERIC:
            raise TypeError(f"custom operators take uint32, int32, float32 or float16 arrays, not {dt}")
        return op.name, op
    if not isinstance(op, str):
        raise TypeError(f"op must be an operator name or a wgprim.Monoid, not {type(op).__name__}")
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


def preamble(op, dt: np.dtype) -> str:
    """The WGSL preamble for operator `op` (a name or Monoid) on elements of dtype `dt`."""
    name, monoid = resolve(op, dt)
    t = WGSL_TYPE[dt]
    head = _enables(dt) + f"alias T = {t};\n" + _float_helpers(dt)
    if name in ARG_OPS:
        # Accumulator: (value, index). NaN wins (as numpy), then the smaller/larger value,
        # then the smaller index, so ties give the first occurrence whatever the order.
        cmp = ARG_OPS[name]
        extreme = _max_of(dt) if cmp == "<" else _min_of(dt)
        nan_test = "is_nan" if dt.kind == "f" else "no_nan"
        lt = "less(a.v, b.v)" if dt.kind == "f" else "a.v < b.v"
        gt = "less(b.v, a.v)" if dt.kind == "f" else "b.v < a.v"
        if cmp == ">":
            lt, gt = gt, lt
        return head + _identity_fn(t, dt, extreme) + f"""
struct ArgPair {{ v: T, i: u32 }}
alias A = ArgPair;
alias R = u32;
fn no_nan(x: T) -> bool {{ return false; }}
fn identity() -> A {{ return ArgPair(identity_value(), 0xffffffffu); }}
fn first(a: A, b: A) -> A {{ if (a.i < b.i) {{ return a; }} return b; }}
fn combine(a: A, b: A) -> A {{
  let an = {nan_test}(a.v);
  let bn = {nan_test}(b.v);
  if (an || bn) {{ if (an && bn) {{ return first(a, b); }} if (an) {{ return a; }} return b; }}
  if ({lt}) {{ return a; }}
  if ({gt}) {{ return b; }}
  return first(a, b);
}}
fn lift(x: T, i: u32) -> A {{ return ArgPair(x, i); }}
fn finish(a: A) -> R {{ return a.i; }}
"""
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
