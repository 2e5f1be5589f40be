"""segment_reduce / segment_scan / segment_sort against per-segment numpy: short and long
segments, empty ones, segments not covering the input, every key dtype, offsets errors."""
import numpy as np
import pytest

import wgprim

from support import forced_ranking_path, random_values, run_on_gl


def random_offsets(rng, n, count, longest, lead=0, tail=0):
    lengths = rng.integers(0, longest + 1, count)
    lengths[rng.random(count) < 0.1] = 0  # some empty segments
    offsets = lead + np.concatenate([[0], np.cumsum(lengths)])
    return np.minimum(offsets, n - tail).astype(np.int64)


def pieces(offsets):
    return list(zip(offsets[:-1], offsets[1:]))


def stable_key(seg, descending):
    if seg.dtype.kind == "f":
        key = np.where(np.isnan(seg), np.inf, np.where(seg == 0, 0, seg)).astype(np.float64)
    else:
        key = seg.astype(np.float64)
    return -key if descending else key


CASES = [(1000, 40, 50, 0, 0), (3000, 30, 200, 5, 7), (20000, 4, 9000, 1, 3), (5000, 3, 2047, 0, 0), (50, 0, 0, 2, 0)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_segment_sort(case, dtype, rng):
    n, count, longest, lead, tail = case
    keys = rng.integers(-20, 20, n).astype(dtype) if dtype != np.uint32 else rng.integers(0, 40, n).astype(dtype)
    if dtype == np.float32:
        keys[::11] = np.nan
        keys[1::13] = -0.0
        keys[2::17] = np.uint32(0xFFC0BEEF).view(np.float32)  # a NaN with a sign and a payload
    values = np.arange(n, dtype=np.uint32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    for descending in (False, True):
        k, v = wgprim.segment_sort(keys, offsets, values, descending=descending)
        k, v = k.numpy(), v.numpy()
        ref_k, ref_v = keys.copy(), values.copy()
        for a, b in pieces(offsets):
            order = np.argsort(stable_key(keys[a:b], descending), kind="stable")
            ref_k[a:b], ref_v[a:b] = keys[a:b][order], values[a:b][order]
        np.testing.assert_array_equal(v, ref_v)
        np.testing.assert_array_equal(k.view(np.uint32), ref_k.view(np.uint32))  # the input's own bits
    only = wgprim.segment_sort(keys, offsets).numpy()
    np.testing.assert_array_equal(only, wgprim.segment_sort(keys, offsets, values)[0].numpy())


@pytest.mark.parametrize("op", ["sum", "max", "argmin", "bitwise_xor"])
@pytest.mark.parametrize("case", CASES + [(300_000, 3, 120_000, 0, 0)], ids=str)
def test_segment_reduce(case, op, rng):
    n, count, longest, lead, tail = case
    x = random_values(rng, n, np.int32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    lengths = np.diff(offsets)
    if op in ("max", "argmin") and np.any(lengths == 0):
        with pytest.raises(ValueError, match="empty segment"):
            wgprim.segment_reduce(x, offsets, op)
        offsets = np.concatenate([[offsets[0]], offsets[1:][lengths > 0]])
    got = wgprim.segment_reduce(x, offsets, op).numpy()
    ref = {
        "sum": lambda s: s.sum(dtype=np.int32), "max": np.max, "argmin": np.argmin,
        "bitwise_xor": lambda s: np.bitwise_xor.reduce(s) if s.size else 0,
    }[op]
    np.testing.assert_array_equal(got, np.array([ref(x[a:b]) for a, b in pieces(offsets)]).astype(got.dtype))


@pytest.mark.parametrize("case", CASES + [(300_000, 3, 120_000, 2, 1)], ids=str)
def test_segment_scan(case, rng):
    n, count, longest, lead, tail = case
    x = random_values(rng, n, np.int32)
    offsets = random_offsets(rng, n, count, longest, lead, tail)
    for exclusive in (False, True):
        got = wgprim.segment_scan(x, offsets, "sum", exclusive=exclusive).numpy()
        ref = x.copy()
        for a, b in pieces(offsets):
            c = np.cumsum(x[a:b], dtype=np.int32)
            ref[a:b] = np.concatenate([[0], c[:-1]]).astype(np.int32) if exclusive and b > a else c
        np.testing.assert_array_equal(got, ref)
    f = random_values(rng, n, np.float32)
    got = wgprim.segment_scan(f, offsets, "min").numpy()
    ref = f.copy()
    for a, b in pieces(offsets):
        ref[a:b] = np.minimum.accumulate(f[a:b])
    np.testing.assert_array_equal(got, ref)


def test_offsets_are_validated():
    x = np.zeros(10, np.float32)
    with pytest.raises(ValueError, match="must not decrease"):
        wgprim.segment_sort(x, [0, 5, 3, 10])
    with pytest.raises(ValueError, match="past the end"):
        wgprim.segment_reduce(x, [0, 11])
    with pytest.raises(ValueError, match=">= 0"):
        wgprim.segment_scan(x, [-1, 4])
    with pytest.raises(TypeError, match="integers"):
        wgprim.segment_sort(x, np.array([0.0, 5.0]))
    with pytest.raises(ValueError, match="1-D"):
        wgprim.segment_sort(x, np.zeros((2, 2), np.int32))
    with pytest.raises(ValueError, match="1-D"):
        wgprim.segment_sort(x, np.zeros(0, np.int32))
    assert wgprim.segment_reduce(x, [4]).shape == (0,)
    np.testing.assert_array_equal(wgprim.segment_sort(np.arange(5, 0, -1, dtype=np.int32), [2, 2]).numpy(),
                                  [5, 4, 3, 2, 1])


def test_non_commutative_scan_keeps_order_in_pieces_and_columns(rng):
    # "last non-zero so far": associative, not commutative; long segments are cut into
    # pieces, long columns too.
    last = wgprim.Monoid("select(a, b, b != 0u)", identity=0)

    def ref_last(x):
        idx = np.where(x != 0, np.arange(x.size), 0)
        out = x[np.maximum.accumulate(idx)]
        out[: np.argmax(x != 0) if x.any() else x.size] = 0
        return out

    x = (rng.integers(0, 3, 200_000) * (rng.random(200_000) < 0.001)).astype(np.uint32)
    offsets = [0, 5, 70_000, 200_000]
    got = wgprim.segment_scan(x, offsets, last).numpy()
    ref = np.concatenate([ref_last(x[a:b]) for a, b in pieces(np.array(offsets))])
    np.testing.assert_array_equal(got, ref)
    y = x[:150_000].reshape(50_000, 3)
    got = wgprim.scan(y, last, axis=0).numpy()
    np.testing.assert_array_equal(got, np.stack([ref_last(y[:, c]) for c in range(3)], axis=1))


# ---- the segmented radix sort (segments longer than one bitonic tile) ------------------
from wgprim.device import get_device  # noqa: E402
from wgprim.ops import radix_sort, segmented  # noqa: E402
from wgprim.ops.radix_sort import radix_sorter as _radix  # noqa: E402


@pytest.fixture(params=["match", "splits", "no-subgroups"])
def ranking(request):
    """Every ranking path of the radix scatter. Returns the radix tile."""
    with forced_ranking_path(request.param) as sorter:
        yield sorter.tile


@pytest.fixture
def no_sort_long(monkeypatch):
    """The two-argsort path must not be taken (the segmented radix sort covers the case)."""
    def refuse(*args, **kwargs):
        raise AssertionError("sort_long was used")
    monkeypatch.setattr(segmented.SegmentSorter, "sort_long", refuse)


def wide_keys(rng, n, dtype):
    """Keys over the whole range (every digit varies: four passes), with ties, NaN, -0.0
    and infinities for floats."""
    x = random_values(rng, n, dtype)
    x[rng.random(n) < 0.2] = x[0]  # ties
    if x.dtype.kind == "f":
        x[rng.random(n) < 0.05] = np.nan
        x[rng.random(n) < 0.05] = -0.0
        x[rng.random(n) < 0.05] = 0.0
        x[rng.random(n) < 0.01] = np.inf
        x[rng.random(n) < 0.01] = -np.inf
    return x


def numpy_stable_order(seg, descending):
    """numpy's stable order of a segment; descending: largest first, NaN first, equal keys
    (-0.0 == 0.0) in input order."""
    if not descending:
        return np.argsort(seg, kind="stable")
    n = seg.size
    return (n - 1 - np.argsort(seg[::-1], kind="stable"))[::-1]


def row_shapes(tile):
    return [(3, 100_003), (2, tile + 1), (5, tile), (4, 2049), (2, 3 * tile - 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
def test_rows_by_segmented_radix(dtype, ranking, no_sort_long, rng):
    for shape in row_shapes(ranking):
        x = wide_keys(rng, int(np.prod(shape)), dtype).reshape(shape)
        vals = (np.arange(x.size, dtype=np.int32) * 7 - 3).reshape(shape)
        for descending in (False, True):
            order = np.stack([numpy_stable_order(row, descending) for row in x])
            keys = np.take_along_axis(x, order, -1)
            np.testing.assert_array_equal(wgprim.sort(x, axis=-1, descending=descending).numpy().view(np.uint32),
                                          keys.view(np.uint32))  # the input's own bits
            np.testing.assert_array_equal(wgprim.argsort(x, axis=-1, descending=descending).numpy(), order)
            k, v = wgprim.sort_pairs(x, vals, axis=-1, descending=descending)
            np.testing.assert_array_equal(k.numpy().view(np.uint32), keys.view(np.uint32))
            np.testing.assert_array_equal(v.numpy(), np.take_along_axis(vals, order, -1))


def uneven_offsets(rng, n, tile, lead, tail):
    """Very uneven CSR segments: empty ones, single keys, short ones (bitonic path), ones
    of one tile, tile + 1 and several tiles (segmented radix path)."""
    choices = [0, 0, 1, 2, 63, 2048, 2049, tile, tile + 1, 3 * tile + 5, 40_000]
    lengths = rng.choice(choices, 24)
    offsets = lead + np.concatenate([[0], np.cumsum(lengths)])
    return np.minimum(offsets, n - tail).astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32])
def test_csr_by_segmented_radix(dtype, ranking, no_sort_long, rng):
    for lead, tail in ((0, 0), (37, 5)):
        n = 200_000
        keys = wide_keys(rng, n, dtype)
        values = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        offsets = uneven_offsets(rng, n, ranking, lead, tail)
        offsets[-1] = max(offsets[-1], n - tail)  # the last segment takes the rest: a long one
        for descending in (False, True):
            ref_k, ref_v = keys.copy(), values.copy()
            for a, b in pieces(offsets):
                order = numpy_stable_order(keys[a:b], descending)
                ref_k[a:b], ref_v[a:b] = keys[a:b][order], values[a:b][order]
            k, v = wgprim.segment_sort(keys, offsets, values, descending=descending)
            np.testing.assert_array_equal(k.numpy().view(np.uint32), ref_k.view(np.uint32))
            np.testing.assert_array_equal(v.numpy(), ref_v)
            only = wgprim.segment_sort(keys, offsets, descending=descending).numpy()
            np.testing.assert_array_equal(only.view(np.uint32), ref_k.view(np.uint32))


def test_segmented_radix_tables(rng):
    """segment_table: per tile (start, length, first tile, shift), shift placing each
    segment where it is in the keys although the scan packs the sorted segments."""
    sorter = _radix(get_device(), np.dtype(np.uint32), False)
    tile = sorter.tile
    starts = np.array([5, 5 + 2 * tile + 1, 9 * tile])
    lengths = np.array([2 * tile + 1, tile, 1])
    table = sorter.segment_table(starts, lengths)
    assert sorter.segment_tiles(lengths) == table.shape[0] == 5
    np.testing.assert_array_equal(table[:, 2], [0, 0, 0, 3, 4])
    np.testing.assert_array_equal(table[:, 3], [5, 5, 5, 5, 9 * tile - (3 * tile + 1)])


def test_beyond_the_segmented_radix_limits(monkeypatch, rng):
    """Where the segmented radix sort does not apply (here: forced), the two radix
    argsorts sort long segments, with the same results."""
    monkeypatch.setattr(radix_sort.RadixSorter, "fits_segments", lambda self, end, tiles: False)
    x = wide_keys(rng, 3 * 5000, np.float32).reshape(3, 5000)
    order = np.argsort(x, axis=-1, kind="stable")
    np.testing.assert_array_equal(wgprim.argsort(x, axis=-1).numpy(), order)
    np.testing.assert_array_equal(wgprim.sort(x, axis=-1).numpy().view(np.uint32),
                                  np.take_along_axis(x, order, -1).view(np.uint32))  # the input's own bits
    keys = wide_keys(rng, 20_000, np.int32)
    offsets = np.array([3, 10, 9000, 9000, 19_990])
    ref = keys.copy()
    for a, b in pieces(offsets):
        ref[a:b] = np.sort(keys[a:b], kind="stable")
    np.testing.assert_array_equal(wgprim.segment_sort(keys, offsets).numpy(), ref)


def test_segmented_radix_on_gl():
    """The segmented radix sort on wgpu's GL backend (no subgroups: the split ranking)."""
    import textwrap

    script = textwrap.dedent("""
        import numpy as np, wgprim
        from wgprim.device import get_device
        from wgprim.ops import segmented
        def refuse(*a, **k):
            raise AssertionError("sort_long was used")
        segmented.SegmentSorter.sort_long = refuse
        dev = get_device()
        print("GL", dev.has_subgroups)
        rng = np.random.default_rng(5)
        x = (rng.standard_normal((3, 10_007)) * 1e3).astype(np.float32)
        x[:, ::9] = np.nan
        x[:, 1::7] = -0.0
        for desc in (False, True):
            got = wgprim.argsort(x, axis=-1, descending=desc).numpy()
            if desc:
                ref = np.stack([(r.size - 1 - np.argsort(r[::-1], kind="stable"))[::-1] for r in x])
            else:
                ref = np.argsort(x, axis=-1, kind="stable")
            assert np.array_equal(got, ref), desc
        keys = rng.integers(-2**31, 2**31, 50_000).astype(np.int32)
        offs = np.array([0, 0, 30, 20_000, 20_001, 49_000, 50_000])
        vals = np.arange(keys.size, dtype=np.uint32)
        k, v = wgprim.segment_sort(keys, offs, vals)
        ref = np.concatenate([np.argsort(keys[a:b], kind="stable") + a for a, b in zip(offs[:-1], offs[1:])])
        assert np.array_equal(v.numpy(), ref) and np.array_equal(k.numpy(), keys[ref])
        print("segmented radix ok")
    """)
    stdout = run_on_gl(script)
    assert "segmented radix ok" in stdout


@pytest.mark.parametrize("bits", [8, 16, 24, 31])
def test_segmented_radix_skipped_digits(bits, no_sort_long, rng):
    """Keys whose high digits are equal everywhere: the probe skips those passes (one, two,
    three or four passes; the result lands in the output either way)."""
    x = rng.integers(0, 2**bits, (3, 10_001)).astype(np.uint32)
    order = np.argsort(x, axis=-1, kind="stable")
    np.testing.assert_array_equal(wgprim.argsort(x, axis=-1).numpy(), order)
    np.testing.assert_array_equal(wgprim.sort(x, axis=-1).numpy(), np.take_along_axis(x, order, -1))
    offsets = np.array([1, 5000, 5001, 29_000])
    k, v = wgprim.segment_sort(x.ravel(), offsets, np.arange(x.size, dtype=np.int32))
    ref = np.arange(x.size)
    for a, b in pieces(offsets):
        ref[a:b] = a + np.argsort(x.ravel()[a:b], kind="stable")
    np.testing.assert_array_equal(v.numpy(), ref)
    np.testing.assert_array_equal(k.numpy(), x.ravel()[ref])
