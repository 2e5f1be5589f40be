"""Host <-> GPU copies (wgprim.transfer): the staged path (several chunks through the
kept staging buffers, host side on several threads) gives back exactly what went in, at
any offset, in queue order with the work around it. Small stage sizes make every case
take several chunks."""
import numpy as np
import pytest

import wgprim
from wgprim import transfer
from wgprim.program import Program
from wgprim.tuning import using


@pytest.fixture
def small_stages():
    with using(transfer.TransferPolicy, staged_from=64 << 10, stage_bytes=256 << 10, slice_bytes=16 << 10):
        yield


@pytest.mark.parametrize("nbytes", [4, (64 << 10) - 4, 64 << 10, (256 << 10), (256 << 10) + 4,
                                    3 * (256 << 10) + 1236, 5 * (256 << 10) - 8])
@pytest.mark.parametrize("dtype", [np.uint32, np.float32, np.int32])
def test_round_trip(small_stages, rng, nbytes, dtype):
    x = rng.integers(0, 2**32, nbytes // 4, dtype=np.uint64).astype(np.uint32).view(dtype)
    a = wgprim.asarray(x)
    y = a.numpy()
    assert y.dtype == x.dtype and y.flags.writeable
    np.testing.assert_array_equal(y.view(np.uint32), x.view(np.uint32))
    if nbytes >= 64 << 10:  # the policy's small stages carried it
        staging = a.device.cache("wgprim staging")
        assert ("up", 256 << 10, 2) in staging and ("down", 256 << 10, 2) in staging


def test_offsets(small_stages, rng):
    dev = wgprim.get_device()
    base = rng.integers(0, 2**32, 300_000, dtype=np.uint64).astype(np.uint32)
    a = wgprim.asarray(base)
    patch = rng.integers(0, 2**32, 200_001, dtype=np.uint64).astype(np.uint32)
    p = Program(dev, label="test")
    p.write(a.buffer, patch, offset=4 * 7)
    want = base.copy()
    want[7:7 + patch.size] = patch
    np.testing.assert_array_equal(a.numpy(), want)
    got = p.read(a.buffer, offset=4 * 99_999, nbytes=4 * 150_000, dtype=np.uint32)
    np.testing.assert_array_equal(got, want[99_999:249_999])


def test_queue_order(small_stages, rng):
    """Writes into one buffer between computations: a computation submitted before the
    write sees the old data; in a batch the write precedes everything the batch queued
    (Program.write's rule, as the queue's write_buffer)."""
    x, y, z = (rng.random(200_000).astype(np.float32) for _ in range(3))
    a = wgprim.asarray(x)
    first = wgprim.sum(a)
    Program(a.device).write(a.buffer, y)
    second = wgprim.sum(a)
    with wgprim.batch():
        queued = wgprim.sum(a)
        Program(a.device).write(a.buffer, z)
    bound = 64 * np.finfo(np.float32).eps * x.size
    for got, data in [(first, x), (second, y), (queued, z)]:
        assert abs(got.item() - data.astype(np.float64).sum()) <= bound
    np.testing.assert_array_equal(a.numpy(), z)


def test_threads_share_the_staging_buffers(small_stages, rng):
    """Threads of one process copying at once (as Dask's threaded scheduler does) each
    get their own data back."""
    from concurrent.futures import ThreadPoolExecutor

    datas = [rng.integers(0, 2**32, 150_000 + 1000 * i, dtype=np.uint64).astype(np.uint32) for i in range(6)]

    def round_trip(x):
        for _ in range(3):
            np.testing.assert_array_equal(wgprim.asarray(x).numpy(), x)
        return True

    with ThreadPoolExecutor(3) as pool:
        assert all(pool.map(round_trip, datas))
