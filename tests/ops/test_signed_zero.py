"""±0, NaN payloads and denormals through every primitive that compares floats.

One rule for all of them (kernels/order_key.wgsl): -0.0 == +0.0, every NaN is one value
above +inf, denormals are ordinary numbers (no flush to zero). Compared with numpy, and
the two min/max methods (tree and atomics) with each other bit for bit.
"""
import numpy as np
import pytest

import wgprim
from wgprim.ops.order_key import host_keys, host_values

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
    for op in ("min", "max"):
        tree = getattr(wgprim, op)(x).item()
        atomic = getattr(wgprim, op)(x, method="atomic").item()
        assert tree == getattr(x, op)()  # numpy's value (its sign depends on its SIMD order)
        assert bits(tree) == bits(atomic) == 0  # one rule: a zero extreme comes back as +0.0
    assert wgprim.argmin(x).item() == np.argmin(x) == 0
    assert wgprim.argmax(x).item() == np.argmax(x) == 0


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
        assert np.isnan(wgprim.min(x, method=method).item()) and np.isnan(wgprim.max(x, method=method).item())
    assert wgprim.argmin(x).item() == np.argmin(x) == first
    assert wgprim.argmax(x).item() == np.argmax(x) == first


@pytest.mark.parametrize("n", [1, 7, 300, 5000, 70_001])
def test_reductions_and_scans_of_awkward_floats(n):
    x = awkward(n, n)
    for op in ("min", "max"):
        want = getattr(np, op)(x)
        for method in ("tree", "atomic"):
            got = getattr(wgprim, op)(x, method=method).item()
            assert (np.isnan(got) and np.isnan(want)) or got == want, (op, method, got, want)
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


def test_float16_reductions(device):
    if not device.has_f16:
        pytest.skip("adapter has no shader-f16")
    x = np.float16([0.0, -0.0] * 3000 + [6e-8, -6e-8])
    assert wgprim.min(x).item() == x.min() and wgprim.max(x).item() == x.max()
    assert wgprim.argmin(x).item() == np.argmin(x) and wgprim.argmax(x).item() == np.argmax(x)
    y = np.float16([1.0, np.nan, -np.nan, 2.0])
    assert np.isnan(wgprim.min(y).item()) and wgprim.argmax(y).item() == 1
