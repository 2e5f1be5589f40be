"""searchsorted's building block (kernels/search.wgsl; the front door is api/search.py),
and the host's side of comparing values of one dtype with values of another.

For each query, the number of elements of the sorted array before it: those whose order
key is below the query's (side "left") or not above it ("right"). Order keys
(ops/order_key.py) are numpy's order: NaN after +inf (numpy sorts NaN last and its
searchsorted follows that order), -0.0 equal to +0.0, every NaN equal to every NaN.

The search (kernels/search.wgsl): splitters (every S-th element's key, at most TABLE of
them) are sampled into a small array by one dispatch; the search dispatch holds them in
workgroup memory, finds each query's range of S - 1 elements among them, and finishes in
global memory with log2(S) steps of a branch-free binary search (Khuong and Morin, "Array
Layouts for Comparison-Based Searching", 2017). Arrays of at most TABLE elements are
searched in workgroup memory alone. Sorted arrays larger than one storage binding are
searched window by window (windows are whole multiples of S, so a query's range lies in
one of them); queries larger than one binding, window by window too.

Comparing across dtypes (`bound_in`): numpy compares a and v in their common dtype (e.g.
float32 elements with a Python float in float64). Rounding into a wider type keeps the
order, so for each query v there is a value t of the elements' dtype with
"x < v  <=>  key(x) < key(t)" (left) or "x <= v  <=>  key(x) <= key(t)" (right) for
every element x: the search runs in the elements' dtype with t. Where no such t exists
(an integer dtype and a query beyond its range) the answer is known: 0 or n.
Histograms use the same thresholds for their bin edges (ops/histogram.py).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from wgprim.array import Array
from wgprim.ops import order_key
from wgprim.ops.common import chunks
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline
from wgprim.program import Program
from wgprim.tuning import policy

U32, I32, F32, F16 = (np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16))
U64, I64, F64 = (np.dtype(t) for t in (np.uint64, np.int64, np.float64))
KEY_TYPES = (U32, I32, F32, F16, U64, I64, F64)
WGSL = {U32: "u32", I32: "i32", F32: "f32", F16: "f16", U64: "vec2<u32>", I64: "vec2<u32>", F64: "vec2<u32>"}
SIDES = ("left", "right")

WG = 256
QPI = 4  # queries per invocation (the kernel's QPI)


@dataclasses.dataclass(frozen=True)
class SearchPolicy:
    """searchsorted's shape (wgprim.tuning)."""
    # Bytes of splitters held in workgroup memory per workgroup (4096 u32 keys, 2048 64-bit
    # ones); the device's workgroup storage caps it. Arrays of at most that many elements
    # are searched in workgroup memory alone.
    table_bytes: int = 16384
    # Workgroups of the search dispatch: each copies the splitters once, then strides over
    # tiles of WG * QPI queries.
    max_groups: int = 2048


NONE = 0xFFFFFFFF  # search_fixed: no known answer


def table_size(device, dt: np.dtype, shape: SearchPolicy = SearchPolicy()) -> int:
    """Splitters per workgroup for keys of dtype dt: a power of two."""
    room = min(shape.table_bytes, device.max_workgroup_storage, device.max_binding_bytes) // _key_bytes(dt)
    return 1 << max(0, room.bit_length() - 1)


def _key_bytes(dt: np.dtype) -> int:
    return 8 if dt in order_key.WIDE else 4


def splitter_step(n: int, table: int) -> int:
    """S: the power of two such that ceil(n / S) splitters fit a table of `table`."""
    need = -(-n // table)
    return 1 << max(0, (need - 1).bit_length())


class SearchRecorder:
    """searchsorted as a building block for (device, dtype, side): `record(program, sorted,
    queries, out)` adds the steps to any Program."""

    def __init__(self, device, dt: np.dtype, side: str, shape: SearchPolicy = SearchPolicy()):
        self.device, self.dt, self.side, self.shape = device, np.dtype(dt), side, shape
        self.table = table_size(device, self.dt, shape)
        wide = self.dt in order_key.WIDE
        if side == "left":
            before = "key64_less(k, q)" if wide else "k < q"
        else:
            before = "!key64_less(q, k)" if wide else "k <= q"
        enable = "enable f16;\n" if self.dt == F16 else ""
        self.preamble = (f"{enable}alias T = {WGSL[self.dt]};\n" + order_key.preamble(self.dt)
                         + f"fn before(k: OrderKey, q: OrderKey) -> bool {{ return {before}; }}\n")
        consts = {"WG": WG, "TABLE": self.table}
        self.sample = get_pipeline(device, "search", self.preamble, "search_splitters", consts)
        self.search = get_pipeline(device, "search", self.preamble, "search", consts)
        self.fix = get_pipeline(device, "search", self.preamble, "search_fixed", {"WG": WG})

    def record(self, program: Program, sorted_: Array, queries: Array, out: Array, fixed: Array | None = None) -> None:
        """out[i] (uint32) = the number of elements of `sorted_` (1-D, in numpy's order) before
        queries[i] (flattened), on this recorder's side; where fixed[i] != NONE, fixed[i]."""
        dev, n, nq = self.device, sorted_.size, queries.size
        if nq == 0:
            return
        if n == 0:  # every answer 0
            program.clear(out.buffer)
            return
        step = splitter_step(n, self.table)
        count = -(-n // step)
        levels = step.bit_length() - 1
        table_levels = count.bit_length()
        key_bytes = -(-count * _key_bytes(self.dt) // 16) * 16
        keys = {"buffer": program.temp(key_bytes), "offset": 0, "size": key_bytes}
        # Windows of the sorted array: whole multiples of S (and of the binding alignment).
        a_tile = max(step, dev.storage_offset_alignment // min(4, sorted_.itemsize))
        windows = chunks(n, sorted_.itemsize, a_tile, dev)
        for w in windows:
            here = -(-w.count // step)
            program.dispatch("search splitters", self.sample,
                             {0: program.params(here, 0, n, step, count, w.start, w.count, 0, 0), 1: w.view(sorted_),
                              5: keys}, -(-here // WG))
        q_itemsize = max(queries.itemsize, 4)  # out's windows follow the queries' (4-byte answers)
        for qc in chunks(nq, q_itemsize, WG * QPI, dev):
            groups = min(self.shape.max_groups, -(-qc.count // (WG * QPI)))
            out_view = qc.view(out)
            for w in windows:
                params = program.params(qc.count, groups, n, step, count, w.start, w.count, levels, table_levels)
                program.dispatch("search", self.search,
                                 {0: params, 1: w.view(sorted_), 2: qc.view(queries), 3: keys, 4: out_view}, groups)
            if fixed is not None:
                params = program.params(qc.count, 0, 0, 0, 0, 0, 0, 0, 0)
                program.dispatch("search fixed answers", self.fix, {0: params, 4: out_view, 6: qc.view(fixed)},
                                 -(-qc.count // WG))


def search_recorder(device, dt, side: str) -> SearchRecorder:
    """The SearchRecorder of (dt, side) on `device`, looked up (caches.lookup); its table
    depends on the SearchPolicy in force and the device's workgroup storage."""
    dt, shape = np.dtype(dt), policy(SearchPolicy, device)
    return lookup(device, ("searchsorted", dt, side, shape, table_size(device, dt, shape)),
                  lambda: SearchRecorder(device, dt, side, shape))


# -- comparing values of one dtype with values of another (the host's side) --------------

def _less(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x < y in numpy's sort order (NaN last, -0.0 == +0.0), elementwise."""
    with np.errstate(invalid="ignore"):
        if x.dtype.kind == "f" or y.dtype.kind == "f":
            return (x < y) | (np.isnan(y) & ~np.isnan(x))
        return x < y


def _key_span(dt: np.dtype) -> tuple[int, int]:
    """The smallest and largest order key a value of dt has (floats: -inf and NaN)."""
    if dt.kind == "f":
        ends = order_key.host_keys(np.array([-np.inf, np.nan], dt))
        return int(ends[0]), int(ends[1])
    return 0, (1 << (8 * dt.itemsize)) - 1


def bound_in(v, dt, side: str) -> tuple[np.ndarray, np.ndarray]:
    """For queries v (numpy values of the comparison dtype ct, any shape) and elements of
    dtype dt: (t, found), t of dtype dt such that for every x of dt, compared in ct as numpy
    compares (x converted to ct):

        side "left":   x < v   <=>  key(x) <  key(t)
        side "right":  x <= v  <=>  key(x) <= key(t)

    found is False where no such t exists (t then holds dt's smallest value): an integer dt
    and a query beyond its range, where the answer is all elements (left) or none (right).
    """
    v = np.asarray(v)
    dt = np.dtype(dt)
    ct = v.dtype
    if ct == dt:
        return v.copy(), np.ones(v.shape, bool)
    if dt.kind in "iu" and ct.kind in "iu":  # exact: clip into dt's range
        info = np.iinfo(dt)
        found = v <= info.max if side == "left" else v >= info.min
        return np.clip(v, info.min, info.max).astype(dt), found
    if dt.kind in "iu" and ct.kind == "f" and np.finfo(ct).nmant + 1 >= 8 * dt.itemsize - (dt.kind == "i"):
        # dt's values are exact in ct: round up (left) or down (right), then clip into dt
        info = np.iinfo(dt)
        low, high = ct.type(info.min), ct.type(info.max)
        nan = np.isnan(v)
        with np.errstate(invalid="ignore"):
            if side == "left":  # x < v <=> x < ceil(v); none beyond every x (NaN: after all)
                edge, found = np.where(nan, low, np.ceil(v)), ~nan & (np.ceil(v) <= high)
            else:  # x <= v <=> x <= floor(v) (NaN: every x); none below every x
                edge, found = np.where(nan, high, np.floor(v)), nan | (np.floor(v) >= low)
        return np.clip(edge, low, high).astype(dt), found
    if dt.kind == "f" and ct.kind == "f" and ct.itemsize >= dt.itemsize:
        # dt's values are exact in ct: the nearest value of dt, moved one step if on the wrong side
        with np.errstate(over="ignore", invalid="ignore"):
            t = v.astype(dt)
            if side == "left":
                t = np.where(_less(t.astype(ct), v), np.nextafter(t, dt.type(np.inf)), t)
            else:
                t = np.where(_less(v, t.astype(ct)), np.nextafter(t, dt.type(-np.inf)), t)
        return t.astype(dt), np.ones(v.shape, bool)
    return _bound_by_keys(v, dt, side)


def _bound_by_keys(v: np.ndarray, dt: np.dtype, side: str) -> tuple[np.ndarray, np.ndarray]:
    """bound_in by a binary search over dt's order keys (any dtypes: the conversion into ct
    only has to keep the order, as rounding does)."""
    ct = v.dtype
    kmin, kmax = _key_span(dt)
    shape = v.shape
    v = v.ravel()
    lo = np.full(v.shape, kmin, np.uint64)
    hi = np.full(v.shape, kmax, np.uint64)
    one = np.uint64(1)

    def value(k):  # the element of key k, in ct
        keys = k if dt.itemsize == 8 else k.astype(np.uint32)
        with np.errstate(over="ignore", invalid="ignore"):
            return order_key.host_values(keys, dt).astype(ct)

    for _ in range(8 * max(dt.itemsize, 4)):
        open_ = lo < hi
        if not open_.any():
            break
        gap = hi - lo
        if side == "left":  # the first key whose value is >= v
            mid = lo + gap // np.uint64(2)
            ok = ~_less(value(mid), v)
            hi = np.where(open_ & ok, mid, hi)
            lo = np.where(open_ & ~ok, mid + one, lo)
        else:  # the last key whose value is <= v
            mid = lo + gap // np.uint64(2) + (gap & one)
            ok = ~_less(v, value(mid))
            lo = np.where(open_ & ok, mid, lo)
            hi = np.where(open_ & ~ok, mid - one, hi)
    found = ~_less(value(lo), v) if side == "left" else ~_less(v, value(lo))
    keys = lo if dt.itemsize == 8 else lo.astype(np.uint32)
    t = order_key.host_values(keys, dt)
    t = np.where(found, t, order_key.host_values(np.array([kmin], keys.dtype), dt)[0]).astype(dt)
    return t.reshape(shape), found.reshape(shape)
