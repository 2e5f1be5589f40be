"""ops/gather.record_gather against numpy's fancy indexing: every element width, awkward
sizes, sources and outputs split over several storage-binding windows."""
import numpy as np
import pytest

import wgprim
from wgprim.array import asarray, empty
from wgprim.device import binding_limit
from wgprim.ops.gather import record_gather
from wgprim.program import Program

DTYPES = [np.bool_, np.float16, np.uint32, np.int32, np.float32, np.uint64, np.int64, np.float64]


def _source(rng, dt, m):
    if dt == np.bool_:
        return rng.random(m) < 0.5
    return np.frombuffer(rng.bytes(m * np.dtype(dt).itemsize), dt).copy()  # any bits, NaN payloads too


def _gather(src, idx):
    s = asarray(src)
    out = empty((idx.size,), s.dtype)
    p = Program(s.device, "gather test")
    record_gather(p, s, asarray(idx), out)
    p.run()
    return out.numpy()


@pytest.mark.parametrize("dt", DTYPES)
def test_gather_matches_numpy_bit_for_bit(rng, device, dt):
    if dt == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")
    for n, m in ((1, 1), (3, 5), (1023, 7), (4097, 3001), (5, 1)):
        src = _source(rng, dt, m)
        idx = rng.integers(0, m, n).astype(np.uint32)
        got = _gather(src, idx)
        assert got.tobytes() == src[idx].tobytes(), (dt, n, m)


@pytest.mark.parametrize("dt", [np.bool_, np.float16, np.float32, np.float64])
def test_gather_over_binding_windows(rng, device, dt):
    if dt == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")
    # 8 KiB bindings: several source and output windows, elements taken from all of them.
    with binding_limit(8192):
        for n, m in ((5000, 9000), (3000, 1100)):
            src = _source(rng, dt, m)
            idx = rng.integers(0, m, n).astype(np.uint32)
            assert _gather(src, idx).tobytes() == src[idx].tobytes(), (dt, n, m)


def test_gather_refuses_mismatched_widths():
    with pytest.raises(ValueError, match="one width"):
        p = Program(wgprim.asarray(np.zeros(4, np.float32)).device, "bad")
        record_gather(p, asarray(np.zeros(4, np.float32)), asarray(np.zeros(4, np.uint32)), empty((4,), np.float64))
