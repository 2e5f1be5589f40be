"""±0, NaN payloads and denormals through every primitive that compares floats.

One rule for all of them (kernels/order_key.wgsl): -0.0 == +0.0, every NaN is one value
above +inf, denormals are ordinary numbers (no flush to zero). Compared with numpy, and
the two min/max methods (tree and atomics) with each other bit for bit. min and max return
one of the input's values bit for bit: where numpy's choice depends on its SIMD loops (±0,
several NaNs), the one `host_min_max` names (-0.0 for min, +0.0 for max; NaNs by payload).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import wgprim
from wgprim.ops.order_key import host_keys, host_min_max, host_values

NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7FC0BEEF]
DENORMALS = [1e-45, -1e-45, 3e-42, -3e-42, 1.1754942e-38, -1.1754942e-38, 1.17549435e-38]


def nans():
    return np.array(NAN_BITS, np.uint32).view(np.float32)


def awkward(n, seed):
    """Random values mixed with both zeros, NaNs of every payload, denormals and infinities."""
    rng = np.random.default_rng(seed)
    specials = np.concatenate([np.float32([0.0, -0.0, np.inf, -np.inf]), nans(), np.float32(DENORMALS)])
    x = (rng.standard_normal(n) * 1e-38).astype(np.float32)  # many denormals
    pick = rng.random(n) < 0.3
    x[pick] = rng.choice(specials, int(pick.sum()))
    return x


def bits(x):
    return np.asarray(x, np.float32).view(np.uint32)


ZEROS = [np.float32([0.0, -0.0] * 3000), np.float32([-0.0, 0.0] * 3000), np.float32([-0.0] * 5 + [0.0]),
         np.float32([-0.0]), np.float32([-0.0] * 70_001)]


@pytest.mark.parametrize("x", ZEROS, ids=["+-", "-+", "-----+", "-", "many-"])
def test_min_max_of_zeros_agree(x):
    both = np.any(bits(x) == 0) and np.any(bits(x) == 0x80000000)
    for op in ("min", "max"):
        tree = getattr(wgprim, op)(x).item()
        atomic = getattr(wgprim, op)(x, method="atomic").item()
        assert tree == getattr(x, op)()  # numpy's value (its sign depends on its SIMD order)
        # one rule: min -0.0 and max +0.0 when both are there, else the one there is
        want = (0x80000000 if op == "min" else 0) if both else bits(x[0])
        assert bits(tree) == bits(atomic) == want
        got_axis = getattr(wgprim, op)(x.reshape(1, -1), axis=1).numpy()
        assert bits(got_axis) == want
    assert wgprim.argmin(x).item() == np.argmin(x) == 0
    assert wgprim.argmax(x).item() == np.argmax(x) == 0


def test_min_max_of_only_negative_zeros_is_negative_zero_as_numpy():
    for dtype, word in ((np.float32, np.uint32), (np.float64, np.uint64), (np.float16, np.uint16)):
        if dtype == np.float16 and not wgprim.get_device().has_f16:
            continue
        x = np.full(5000, -0.0, dtype)
        for op in ("min", "max"):
            methods = ("tree", "atomic") if dtype == np.float32 else ("tree",)
            for method in methods:
                got = getattr(wgprim, op)(x, method=method).numpy()
                assert got.view(word) == getattr(x, op)().view(word) == x[0].view(word)


def test_min_max_of_denormals_and_zeros():
    for values in ([1e-45, 0.0], [-1e-45, 0.0, -0.0], [1e-45, -0.0, 3e-42], DENORMALS):
        x = np.float32(values)
        for method in ("tree", "atomic"):
            assert bits(wgprim.min(x, method=method).item()) == bits(x.min()) or x.min() == 0 == wgprim.min(x).item()
            assert bits(wgprim.max(x, method=method).item()) == bits(x.max()) or x.max() == 0 == wgprim.max(x).item()
        assert wgprim.argmin(x).item() == np.argmin(x)
        assert wgprim.argmax(x).item() == np.argmax(x)


@pytest.mark.parametrize("payload", NAN_BITS)
@pytest.mark.parametrize("where", [0, 4321, 9999])
def test_every_nan_payload_propagates(payload, where):
    x = np.linspace(-1, 1, 10_000).astype(np.float32)
    x[where] = np.uint32(payload).view(np.float32)
    x[where + 1 if where < 9999 else 0] = np.uint32(NAN_BITS[0]).view(np.float32)  # a second NaN
    first = int(np.flatnonzero(np.isnan(x))[0])
    for method in ("tree", "atomic"):
        for op in ("min", "max"):
            got = getattr(wgprim, op)(x, method=method).numpy()
            assert bits(got) == bits(host_min_max(x, op))  # the NaN the rule names: one of the two
            assert bits(got) in (payload, NAN_BITS[0])
    assert wgprim.argmin(x).item() == np.argmin(x) == first
    assert wgprim.argmax(x).item() == np.argmax(x) == first


@pytest.mark.parametrize("n", [1, 7, 300, 5000, 70_001])
def test_reductions_and_scans_of_awkward_floats(n):
    x = awkward(n, n)
    for op in ("min", "max"):
        want = getattr(np, op)(x)
        for method in ("tree", "atomic"):
            got = getattr(wgprim, op)(x, method=method).numpy()
            assert (np.isnan(got) and np.isnan(want)) or got == want, (op, method, got, want)
            assert bits(got) == bits(host_min_max(x, op)), (op, method)  # one of x's values
        acc = getattr(np, "minimum" if op == "min" else "maximum").accumulate(x)
        np.testing.assert_array_equal(wgprim.scan(x, op).numpy(), acc)  # NaN where numpy has NaN, ±0 equal
    assert wgprim.argmin(x).item() == np.argmin(x)
    assert wgprim.argmax(x).item() == np.argmax(x)


@pytest.mark.parametrize("n", [1, 7, 300, 5000, 70_001])
@pytest.mark.parametrize("descending", [False, True])
def test_sorts_of_awkward_floats(n, descending):
    x = awkward(n, 1000 + n)
    keys = host_keys(x)
    order = np.argsort(~keys if descending else keys, kind="stable")
    if not descending:
        np.testing.assert_array_equal(order, np.argsort(x, kind="stable"))  # the host twin is numpy's order
    np.testing.assert_array_equal(wgprim.argsort(x, descending=descending).numpy(), order)
    # The input's own bits, moved: each zero keeps its sign, each NaN its payload.
    np.testing.assert_array_equal(bits(wgprim.sort(x, descending=descending).numpy()), bits(x[order]))
    if n <= 4096:
        np.testing.assert_array_equal(bits(wgprim.sort(x, descending=descending, method="bitonic").numpy()),
                                      bits(x[order]))
    k, v = wgprim.sort_pairs(x, np.arange(n, dtype=np.uint32), descending=descending)
    np.testing.assert_array_equal(bits(k.numpy()), bits(x[order]))
    np.testing.assert_array_equal(v.numpy(), order)


@pytest.mark.parametrize("n", [1, 300, 70_001])
def test_unique_and_runs_of_awkward_floats(n):
    x = awkward(n, 2000 + n)
    values, inverse, counts = wgprim.unique(x, return_inverse=True, return_counts=True)
    want, want_inverse, want_counts = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(values.numpy(), want)  # one NaN, one zero
    np.testing.assert_array_equal(inverse.numpy(), want_inverse)
    np.testing.assert_array_equal(counts.numpy(), want_counts)
    s = np.sort(x)
    v, c = wgprim.run_length_encode(s)
    np.testing.assert_array_equal(v.numpy(), want)
    np.testing.assert_array_equal(c.numpy(), want_counts)


def test_runs_treat_zeros_and_nan_payloads_as_equal():
    x = np.concatenate([np.float32([0.0, -0.0, 0.0]), nans(), np.float32([1e-45, 1e-45, -1e-45, 0.0])])
    v, c = wgprim.run_length_encode(x)
    np.testing.assert_array_equal(v.numpy(), np.float32([0.0, np.nan, 1e-45, -1e-45, 0.0]))
    np.testing.assert_array_equal(c.numpy(), [3, len(NAN_BITS), 2, 1, 1])


@pytest.mark.parametrize("n", [7, 5000, 70_001])
def test_histograms_of_awkward_floats(n):
    x = awkward(n, 3000 + n)
    for edges in ([-1e-38, -1e-45, 0.0, 1e-45, 1e-38], [-np.inf, -0.0, np.inf], [0.0, 1e-45, 3e-42, 1.0]):
        e = np.float32(edges)
        np.testing.assert_array_equal(wgprim.histogram(x, bins=e)[0].numpy(), np.histogram(x, bins=e)[0])
    for rng_ in ((-1e-38, 1e-38), (-0.0, 1e-40), (0.0, 0.0)):
        want = np.histogram(x, bins=16, range=rng_)
        got = wgprim.histogram(x, bins=16, range=rng_)
        np.testing.assert_array_equal(got[0].numpy(), want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_host_keys_round_trip_and_rules():
    x = np.concatenate([np.float32([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0]), nans(), np.float32(DENORMALS)])
    k = host_keys(x)
    assert k[0] == k[1]  # ±0 one key
    assert len(set(k[np.isnan(x)])) == 1 and k[np.isnan(x)][0] > k[2]  # every NaN one key above +inf
    back = host_values(k, np.float32)
    ok = ~np.isnan(x)
    np.testing.assert_array_equal(back[ok], x[ok])
    assert bits(back[1]) == 0 and np.all(bits(back[~ok]) == 0x7FC00000)
    for v in (np.array([-2**31, -1, 0, 1, 2**31 - 1], np.int32), np.array([0, 1, 2**31, 2**32 - 1], np.uint32)):
        dt = v.dtype
        assert np.all(np.diff(host_keys(v).astype(np.int64)) > 0)
        np.testing.assert_array_equal(host_values(host_keys(v), dt), v)


F64_NANS = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
            0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF80000DEADBEEF]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False, width=32) | st.sampled_from([0.0, -0.0]) |
                st.sampled_from(NAN_BITS).map(lambda b: float(np.uint32(b).view(np.float32))),
                min_size=1, max_size=3000))
def test_hypothesis_min_max_return_input_bits_float32(values):
    x = np.array(values, np.float32)
    if np.isnan(x).any():  # float(...) of a NaN loses its payload: put the payloads back
        x[np.isnan(x)] = np.resize(nans(), int(np.isnan(x).sum()))
    for op in ("min", "max"):
        want = bits(host_min_max(x, op))
        assert want in bits(x)
        for method in ("tree", "atomic"):
            assert bits(getattr(wgprim, op)(x, method=method).numpy()) == want, (op, method)
    assert wgprim.argmin(x).item() == np.argmin(x) and wgprim.argmax(x).item() == np.argmax(x)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=False) | st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 2.2e-308]),
                min_size=1, max_size=3000),
       st.lists(st.sampled_from(F64_NANS), max_size=4))
def test_hypothesis_min_max_return_input_bits_float64(values, payloads):
    # ±0, denormals, infinities and NaNs of several payloads, anywhere
    x = np.concatenate([np.array(values, np.float64), np.array(payloads, np.uint64).view(np.float64)])
    x = np.random.default_rng(len(values)).permutation(x)
    for op in ("min", "max"):
        got = getattr(wgprim, op)(x).numpy().view(np.uint64)
        assert got == host_min_max(x, op).view(np.uint64) and got in x.view(np.uint64), op
    for op in ("argmin", "argmax"):
        assert getattr(wgprim, op)(x).item() == getattr(np, op)(x)


def test_the_nan_that_min_and_max_return():
    # Several NaNs: min the positive one with the smallest payload (else the negative one
    # with the largest), max the negative one with the smallest payload (else the positive
    # one with the largest), whatever their positions.
    for picks, want_min, want_max in (([0x7FC00005, 0x7F800001, 0xFFC00000], 0x7F800001, 0xFFC00000),
                                      ([0xFFC00000, 0xFFFFFFFF], 0xFFFFFFFF, 0xFFC00000),
                                      ([0x7FC00000, 0x7FC0BEEF], 0x7FC00000, 0x7FC0BEEF)):
        for order in (picks, picks[::-1]):
            x = np.linspace(-1, 1, 9000).astype(np.float32)
            x[[100, 4000, 8999][: len(order)]] = np.array(order, np.uint32).view(np.float32)
            for method in ("tree", "atomic"):
                assert bits(wgprim.min(x, method=method).numpy()) == want_min
                assert bits(wgprim.max(x, method=method).numpy()) == want_max
    y = np.ones(5000)
    y[[3, 70]] = np.array([0x7FF0000000000001, 0xFFF8000000000000], np.uint64).view(np.float64)
    assert wgprim.min(y).numpy().view(np.uint64) == 0x7FF0000000000001
    assert wgprim.max(y).numpy().view(np.uint64) == 0xFFF8000000000000


def test_float16_reductions(device):
    if not device.has_f16:
        pytest.skip("adapter has no shader-f16")
    x = np.float16([0.0, -0.0] * 3000 + [6e-8, -6e-8])
    assert wgprim.min(x).item() == x.min() and wgprim.max(x).item() == x.max()
    assert wgprim.argmin(x).item() == np.argmin(x) and wgprim.argmax(x).item() == np.argmax(x)
    y = np.float16([1.0, np.nan, -np.nan, 2.0])
    assert np.isnan(wgprim.min(y).item()) and wgprim.argmax(y).item() == 1
    # the input's own bits: ±0 by the rule; a NaN payload survives, though the comparison
    # goes through f32 (the values are accumulated, not their keys)
    z = np.float16([0.0, -0.0, 1.0, -0.0])
    assert wgprim.min(z).numpy().view(np.uint16) == 0x8000 and wgprim.max(-z).numpy().view(np.uint16) == 0
    for payload in (0x7C01, 0xFC01, 0x7E05, 0xFFFF):
        w = np.float16([1.0, 0.0, 2.0] * 3000)
        w[4321] = np.uint16(payload).view(np.float16)
        for op in ("min", "max"):
            assert getattr(wgprim, op)(w).numpy().view(np.uint16) == payload
            assert getattr(wgprim, op)(w.reshape(3, -1), axis=1).numpy().view(np.uint16)[1] == payload
