"""What an array index can be: a few symbolic terms plus a bounded integer rest.

`Shape(terms, lo, hi)` stands for `sum(coef * symbol for symbol, coef in terms) + v`, `v`
in `[lo, hi]`. Symbols are values fixed for the whole dispatch (constants of a uniform
buffer, `num_workgroups`) or a component of `workgroup_id` (fixed within one workgroup,
different between workgroups). Anything else that varies between invocations (a loaded
key, a loop variable) has no symbol: it is kept only as bounds (`key & 255u` is in
`[0, 255]`, an unknown `u32` in `[0, 2^32 - 1]`) or, when even that is unknown, makes the
shape unknown (`terms` None).

That is enough to tell regions of one flat buffer apart: `buf[COUNTERS + (i % 16u)]` never
meets `buf[ARGS + 0u]`, and `hist[wid.x * 256u + (key & 255u)]` only ever meets the
indices of its own workgroup. Index arithmetic wraps modulo 2^32; two shapes are only told
apart when their bounded rests span less than that.
"""
from __future__ import annotations

from dataclasses import dataclass

U32_MAX = 0xFFFFFFFF
WORKGROUP = "workgroup_id"  # symbol kind of a workgroup_id component: ("workgroup_id", "x")


@dataclass(frozen=True)
class Shape:
    terms: tuple | None = ()  # sorted ((symbol, coef), ...); None: nothing is known
    lo: int | None = None
    hi: int | None = None
    unsigned: bool = False

    @property
    def known(self) -> bool:
        return self.terms is not None and self.lo is not None and self.hi is not None

    @property
    def interval(self) -> bool:
        """Known bounds and no symbol: a plain range."""
        return self.known and not self.terms


UNKNOWN = Shape(None)


def point(value: int, unsigned: bool = False) -> Shape:
    return Shape((), value, value, unsigned)


def span(lo: int, hi: int, unsigned: bool = False) -> Shape:
    return Shape((), lo, hi, unsigned)


def symbol(key, unsigned: bool = False) -> Shape:
    return Shape(((key, 1),), 0, 0, unsigned)


def unknown(unsigned: bool) -> Shape:
    """A value that varies in ways not followed: only its type bounds it."""
    return span(0, U32_MAX, True) if unsigned else UNKNOWN


def _wrap(s: Shape) -> Shape:
    # a u32 range that left [0, 2^32) may have wrapped: only the type bounds it then
    if s.unsigned and s.interval and (s.lo < 0 or s.hi > U32_MAX):
        return span(0, U32_MAX, True)
    return s


def add(a: Shape, b: Shape, sign: int = 1) -> Shape:
    unsigned = a.unsigned or b.unsigned
    if not (a.known and b.known):
        return unknown(unsigned)
    terms = dict(a.terms)
    for key, coef in b.terms:
        terms[key] = terms.get(key, 0) + sign * coef
    merged = tuple(sorted(((k, c) for k, c in terms.items() if c), key=repr))
    lo, hi = (a.lo + b.lo, a.hi + b.hi) if sign > 0 else (a.lo - b.hi, a.hi - b.lo)
    return _wrap(Shape(merged, lo, hi, unsigned))


def scale(a: Shape, c: int, unsigned: bool) -> Shape:
    if not a.known:
        return unknown(unsigned or a.unsigned)
    lo, hi = sorted((a.lo * c, a.hi * c))
    terms = tuple((k, coef * c) for k, coef in a.terms if coef * c)
    return _wrap(Shape(terms, lo, hi, unsigned or a.unsigned))


def mask(a: Shape, m: int, unsigned: bool) -> Shape:
    """`a & m` for a non-negative constant m."""
    hi = m
    if a.interval and a.lo >= 0:
        hi = min(hi, a.hi)
    return span(0, hi, unsigned or a.unsigned)


def modulo(a: Shape, c: int, unsigned: bool) -> Shape:
    unsigned = unsigned or a.unsigned
    if a.interval and a.lo >= 0:
        return span(0, min(a.hi, c - 1), unsigned)
    if unsigned:
        return span(0, c - 1, True)
    return span(-(c - 1), c - 1)  # a signed remainder has the sign of `a`


def divide(a: Shape, c: int, unsigned: bool) -> Shape:
    unsigned = unsigned or a.unsigned
    if a.interval and a.lo >= 0:
        return span(a.lo // c, a.hi // c, unsigned)
    return unknown(unsigned)


def shift_right(a: Shape, s: int) -> Shape:
    if a.interval and a.lo >= 0:
        return span(a.lo >> s, a.hi >> s, a.unsigned)
    if a.unsigned:
        return span(0, U32_MAX >> s, True)
    return UNKNOWN


def hull(a: Shape, b: Shape) -> Shape:
    """Either a or b (`select`, `min`, `max` of two bounded values)."""
    unsigned = a.unsigned or b.unsigned
    if a.known and b.known and a.terms == b.terms:
        return Shape(a.terms, min(a.lo, b.lo), max(a.hi, b.hi), unsigned)
    return unknown(unsigned)


def _workgroup_terms(terms) -> list:
    return [(k, c) for k, c in terms if isinstance(k, tuple) and k and k[0] == WORKGROUP]


def apart_between_workgroups(a: Shape, b: Shape) -> bool:
    """Whether an index of shape `a` in one workgroup can never equal an index of shape
    `b` in another: the same symbols, one workgroup_id component among them with
    coefficient c, and both rests within one window shorter than c (`wid.x * 256u + lid.x`
    with a workgroup of 256)."""
    if not (a.known and b.known) or a.terms != b.terms:
        return False
    wg = _workgroup_terms(a.terms)
    if len(wg) != 1:
        return False
    coef = abs(wg[0][1])
    return max(a.hi, b.hi) - min(a.lo, b.lo) < coef


# WebGPU's maxComputeWorkgroupsPerDimension (its default, and what implementations offer):
# each component of workgroup_id is below it, each of num_workgroups at most it
MAX_WORKGROUPS = 65535


def symbol_bounds(key) -> tuple[int, int] | None:
    """The values a symbol can take, where they are known: a component of workgroup_id or
    of num_workgroups (constants of a uniform buffer and overrides can be anything)."""
    if isinstance(key, tuple) and key:
        if key[0] == WORKGROUP:
            return 0, MAX_WORKGROUPS - 1
        if key[0] == "num_workgroups":
            return 1, MAX_WORKGROUPS
    return None


def difference(a: Shape, b: Shape) -> tuple[int, int] | None:
    """The range of `a - b` (before wrapping) for `a` and `b` taken in any two invocations
    of the dispatch: a workgroup_id term is a value of its own on each side, a symbol fixed
    for the dispatch the same on both (it cancels when its coefficients agree, and must be
    bounded otherwise). None when an unbounded symbol is left."""
    lo, hi = a.lo - b.hi, a.hi - b.lo
    coefs: dict = {}
    for side, shape, sign in (("a", a, 1), ("b", b, -1)):
        for key, coef in shape.terms:
            slot = (side, key) if _workgroup_terms(((key, coef),)) else ("dispatch", key)
            coefs[slot] = coefs.get(slot, 0) + sign * coef
    for (_, key), coef in coefs.items():
        if not coef:
            continue
        bounds = symbol_bounds(key)
        if bounds is None:
            return None
        ends = (coef * bounds[0], coef * bounds[1])
        lo, hi = lo + min(ends), hi + max(ends)
    return lo, hi


def apart(a: Shape, b: Shape) -> bool:
    """Whether two indices can never be equal, in any two invocations of the dispatch."""
    if not (a.known and b.known):
        return False
    if a.terms == b.terms and (a.hi < b.lo or b.hi < a.lo):
        # disjoint within one workgroup (the symbols cancel), unless the arithmetic can
        # wrap one onto the other
        if max(a.hi, b.hi) - min(a.lo, b.lo) <= U32_MAX and (
                # and between workgroups, when no workgroup_id term lets them slide
                not _workgroup_terms(a.terms) or apart_between_workgroups(a, b)):
            return True
    # otherwise from the bounds of the terms one side has and the other lacks (the totals at
    # [0, 1024) and the blocks at `1024u + wid.x * 256u + lid.x`): equal modulo 2^32 only
    # when their difference is a multiple of 2^32
    d = difference(a, b)
    if d is None:
        return False
    lo, hi = d
    return (hi // (U32_MAX + 1)) * (U32_MAX + 1) < lo
