"""The direct wgpu-native calls of the hot path (wgprim/native.py) and wgpu-py's public
calls beside them give the same results."""
import numpy as np
import pytest

import wgprim
from wgprim import native


@pytest.fixture(params=[False, True], ids=["direct", "public"])
def calls(request, monkeypatch):
    if not request.param and not native.direct():
        pytest.skip("this wgpu-py has no direct entry points: the public calls are all there is")
    monkeypatch.setattr(native, "PUBLIC", request.param)
    return request.param


def test_both_paths_run_the_same_primitives(calls, rng):
    x = rng.standard_normal(70_001).astype(np.float32)
    keys = rng.integers(0, 2**32, 9000, dtype=np.uint64).astype(np.uint32)
    mask = x > 0
    np.testing.assert_array_equal(wgprim.sort(keys).numpy(), np.sort(keys))
    np.testing.assert_array_equal(wgprim.compact(x, mask).numpy(), x[mask])
    assert wgprim.max(x).item() == x.max()
    counts, _ = wgprim.histogram(x, bins=64, range=(-3, 3))  # a zeroed result: a clear step
    np.testing.assert_array_equal(counts.numpy(), np.histogram(x, bins=64, range=(-3, 3))[0])


def test_both_paths_read_back_the_same_bytes(calls, device):
    data = np.arange(1, 1 + 1001, dtype=np.uint32)
    a = wgprim.asarray(data)
    for offset, count in [(0, 1), (4, 3), (0, 1001), (400, 600)]:
        got = np.frombuffer(wgprim.transfer.read(device, a.buffer, 4 * offset, 4 * count), np.uint32)
        np.testing.assert_array_equal(got, data[offset:offset + count])


def test_an_encoding_error_is_raised_not_lost(calls, device):
    from wgprim.errors import WgprimError
    from wgprim.program import Program

    p = Program(device, "bad copy")
    a, b = wgprim.empty((4,), np.uint32), wgprim.empty((4,), np.uint32)
    p.copy(a.buffer, 0, b.buffer, 0, 4096)  # past both buffers' ends
    with pytest.raises(WgprimError):
        p.run()
    assert wgprim.sum(np.arange(10, dtype=np.uint32)).item() == 45  # still usable
