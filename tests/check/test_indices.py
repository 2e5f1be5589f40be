"""Index shapes (`wgprim.check.indices`) are sound: when the checker decides from them that
no other workgroup adds to the word an atomicLoad reads, that is true.

Random pairs of index expressions over `workgroup_id.x`, `local_invocation_id.x`,
`global_invocation_id.x`, a uniform value, a loaded key and a loop counter in [0, 4) (one
for an atomicAdd, one for an atomicLoad of the same buffer) go through `check_source`;
whenever the load is not reported, brute-force evaluation over four workgroups (the first
three and the last one a dispatch can have) confirms that no add of another workgroup
reaches it.
"""
from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from wgprim.check import check_source
from wgprim.check import indices as ix

WG = 8  # invocations per workgroup in the generated kernels
U32 = 0xFFFFFFFF

leaf = st.sampled_from(["wid.x", "lid.x", "gid.x", "u.n", "key", "p"]) | st.integers(0, 300).map(lambda v: f"{v}u")


def _extend(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-"]), children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, st.integers(1, 70)).map(lambda t: f"({t[0]} * {t[1]}u)"),
        st.tuples(children, st.integers(0, 255)).map(lambda t: f"({t[0]} & {t[1]}u)"),
        st.tuples(children, st.integers(1, 64)).map(lambda t: f"({t[0]} % {t[1]}u)"),
        st.tuples(children, st.integers(1, 31)).map(lambda t: f"({t[0]} >> {t[1]}u)"),
        st.tuples(children, st.integers(1, 64)).map(lambda t: f"min({t[0]}, {t[1]}u)"),
    )


expr = st.recursive(leaf, _extend, max_leaves=5)


def _evaluate(text: str, wid: int, lid: int, n: int, key: int, p: int) -> int:
    scope = {"wid": _Vec(_U(wid)), "lid": _Vec(_U(lid)), "gid": _Vec(_U(wid * WG + lid)),
             "u": _N(_U(n)), "key": _U(key), "p": _U(p), "_U": _U, "min": lambda a, b: _U(min(a.v, b.v))}
    py = re.sub(r"\b(\d+)u\b", r"_U(\1)", text)
    return eval(py, {"__builtins__": {}}, scope).v  # noqa: S307 - expressions built above


class _Vec:
    def __init__(self, x):
        self.x = x


class _N:
    def __init__(self, n):
        self.n = n


class _U:
    """A u32: arithmetic wraps, `/`, `%` and `>>` are unsigned."""

    def __init__(self, v):
        self.v = v & U32

    @staticmethod
    def _o(other):
        return other.v

    def __add__(self, o): return _U(self.v + self._o(o))
    __radd__ = __add__
    def __sub__(self, o): return _U(self.v - self._o(o))
    def __rsub__(self, o): return _U(self._o(o) - self.v)
    def __mul__(self, o): return _U(self.v * self._o(o))
    __rmul__ = __mul__
    def __and__(self, o): return _U(self.v & self._o(o))
    __rand__ = __and__
    def __mod__(self, o): return _U(self.v % self._o(o))
    def __rmod__(self, o): return _U(self._o(o) % self.v) if self.v else _U(0)
    def __rshift__(self, o): return _U(self.v >> self._o(o))
    def __rrshift__(self, o): return _U(self._o(o) >> self.v)


def _kernel(a: str, b: str) -> str:
    return f"""
struct U {{ n: u32 }}
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read> keys: array<u32>;
@group(0) @binding(2) var<storage, read_write> buf: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(global_invocation_id) gid: vec3<u32>) {{
  let key = keys[gid.x];
  for (var p = 0u; p < 4u; p++) {{
    atomicAdd(&buf[{a}], 1u);
  }}
  for (var p = 0u; p < 4u; p++) {{
    out[gid.x] = atomicLoad(&buf[{b}]);
  }}
}}
"""


WORKGROUPS = (0, 1, 2, ix.MAX_WORKGROUPS - 1)


def _values_by_workgroup(text: str, n: int, keys: list[int]) -> dict[int, set[int]]:
    """Brute force: the values `text` takes in each workgroup of WORKGROUPS, every
    invocation, key and round."""
    return {w: {_evaluate(text, w, l, n, k, p) for l, k, p in itertools.product(range(WG), keys, range(4))}
            for w in WORKGROUPS}


def _related(a: str):
    """Another index like `a`: itself, shifted, or with one leaf swapped."""
    return st.one_of(
        st.just(a),
        st.integers(1, 300).map(lambda k: f"({a} + {k}u)"),
        st.sampled_from(["lid.x", "key", "gid.x"]).map(lambda leaf: a.replace("lid.x", leaf, 1)),
        expr,
    )


pairs = expr.flatmap(lambda a: st.tuples(st.just(a), _related(a)))


@settings(max_examples=80, deadline=None)
@given(pairs, st.integers(0, 1000), st.lists(st.integers(0, U32), min_size=1, max_size=2))
def test_loads_called_final_are_never_reached_by_another_workgroups_add(pair, n, keys):
    a, b = pair
    findings = check_source(_kernel(a, b), "k.wgsl", select=["same-dispatch-read"])
    if findings:
        return  # reported: nothing to prove
    adds, loads = _values_by_workgroup(a, n, keys), _values_by_workgroup(b, n, keys)
    # not reported: no add of another workgroup reaches the load
    for w_add, w_load in itertools.permutations(WORKGROUPS, 2):
        assert not (adds[w_add] & loads[w_load]), (a, b, n, keys)


def test_shapes_of_simple_regions():
    wid = ix.symbol((ix.WORKGROUP, "x"), True)
    own = ix.add(ix.scale(wid, 64, True), ix.span(0, 63, True))
    assert ix.apart_between_workgroups(own, own)
    shifted = ix.add(ix.scale(wid, 64, True), ix.span(1, 64, True))
    assert not ix.apart_between_workgroups(own, shifted)
    assert ix.apart(ix.point(0), ix.span(4, 19))
    assert not ix.apart(ix.span(0, 5), ix.span(5, 9))
    # wrapping u32 arithmetic: 0 - 1 is 2^32 - 1, which a full range may hold
    assert not ix.apart(ix.span(0, ix.U32_MAX, True), ix.point(ix.U32_MAX))
    # terms one side lacks, bounded: a block per workgroup past the first 1024 words
    blocks = ix.add(ix.point(1024, True), ix.add(ix.scale(wid, 256, True), ix.span(0, 255, True)))
    assert ix.apart(ix.span(0, 1023, True), blocks)
    assert not ix.apart(ix.span(0, 1024, True), blocks)
    # ...but not past 2^32: wrapped, the blocks of late workgroups come round to the start
    assert not ix.apart(ix.span(0, 1023, True), ix.add(ix.point(1024, True), ix.scale(wid, 1 << 20, True)))
    assert ix.mask(ix.UNKNOWN, 255, True) == ix.span(0, 255, True)
    assert ix.modulo(ix.unknown(True), 16, True) == ix.span(0, 15, True)


def test_a_loop_counter_over_constants_bounds_an_index():
    def reads_partial(bound: str) -> bool:
        text = f"""
@group(0) @binding(0) var<storage, read_write> hist: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {{
  atomicAdd(&hist[1024u + wid.x * 256u + lid.x], 1u);
  for (var p = 0u; {bound}; p++) {{
    out[p * 256u + lid.x] = atomicLoad(&hist[p * 256u + lid.x]);
  }}
}}
"""
        return bool(check_source(text, "k.wgsl", select=["same-dispatch-read"]))

    assert not reads_partial("p < 4u")
    assert not reads_partial("p <= 3u")
    assert reads_partial("p < 5u")  # the last round reads the first workgroup's block
