"""wgprim.dask on a 2-process LocalCluster (gpu_cluster): results equal numpy's, each
worker is pinned to an adapter, and errors raised on a worker's GPU reach the caller."""
import os

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import wgprim  # noqa: E402
import wgprim.dask as wd  # noqa: E402
from support import random_values  # noqa: E402

CHUNKS = (0, 1000, 1, 0, 2345, 654)  # uneven, with empty chunks
N = sum(CHUNKS)


@pytest.fixture(scope="module")
def client():
    # Workers inherit this process's environment (PYTHONPATH included) and each gets
    # WGPRIM_ADAPTER; on one adapter (CI's lavapipe) both workers share adapter 0.
    cluster = wd.gpu_cluster(n_workers=2, silence_logs=50)
    client = cluster.get_client()
    yield client
    client.close()
    cluster.close()


def test_workers_are_pinned(client):
    pinned = client.run(lambda: (os.environ.get("WGPRIM_ADAPTER"), wgprim.get_device().summary))
    assert len(pinned) == 2
    adapters = wgprim.list_adapters()
    expected = wd.gpu_adapters()
    for index, summary in pinned.values():
        assert int(index) in expected and adapters[int(index)] == summary
    assert all(w["nthreads"] == 1 for w in client.scheduler_info()["workers"].values())


def test_same_code_through_a_scheduler_address(client, rng):
    """As on machines of their own: a client that knows only the scheduler's address."""
    x = random_values(rng, N, np.int32)
    d = da.from_array(x, chunks=(CHUNKS,))
    with distributed.Client(client.scheduler.address, set_as_default=False) as remote:
        total, ordered = remote.compute([wd.sum(d), wd.sort(d)], sync=True)
    assert total == x.sum(dtype=x.dtype)
    np.testing.assert_array_equal(ordered, np.sort(x))


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32])
def test_primitives_on_the_cluster(client, rng, dtype):
    x = random_values(rng, N, dtype)
    if dtype == np.float32:
        x[rng.choice(N, 4, replace=False)] = np.nan
    d = da.from_array(x, chunks=(CHUNKS,))
    total, low, where = client.compute([wd.sum(d), wd.min(d), wd.argmin(d)], sync=True)
    if dtype == np.float32:
        assert np.isnan(total) and np.isnan(low)
    else:
        assert total == x.sum(dtype=x.dtype) and low == x.min()
    assert where == np.argmin(x)
    got = client.compute([wd.sort(d), wd.argsort(d), wd.topk(d, 9), wd.unique(d)], sync=True)
    np.testing.assert_array_equal(got[0], np.sort(x))
    np.testing.assert_array_equal(got[1], np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(got[2], np.sort(x)[::-1][:9])
    np.testing.assert_array_equal(got[3], np.unique(x))
    lo, hi = (-200.0, 200.0) if dtype == np.float32 else (float(x.min()), float(x.max()))
    h, edges = wd.histogram(d, bins=64, range=(lo, hi))
    np.testing.assert_array_equal(h.compute(), np.histogram(x, 64, (lo, hi))[0])
    if dtype != np.float32:
        np.testing.assert_array_equal(wd.cumsum(d).compute(), np.cumsum(x, dtype=x.dtype))


def test_float_sums_on_the_cluster(client, rng):
    x = (rng.standard_normal((N, 3)) * 100).astype(np.float32)
    d = da.from_array(x, chunks=(CHUNKS, (1, 2)))
    exact = x.astype(np.float64)
    assert abs(wd.sum(d).compute() - exact.sum()) <= wd.sum_error_bound(d, np.abs(exact).sum())
    got = wd.sum(d, axis=0).compute()
    assert np.all(np.abs(got - exact.sum(0)) <= wd.sum_error_bound(d, np.abs(exact).sum(0), axis=0))
    running = wd.cumsum(d[:, 0]).compute()
    bound = wd.cumsum_error_bound(d[:, 0], np.cumsum(np.abs(exact[:, 0])))
    assert np.all(np.abs(running - np.cumsum(exact[:, 0])) <= bound)


def test_worker_errors_reach_the_caller(client):
    negative = da.from_array(np.array([3, 1, -2, 5], np.int32), chunks=2)
    with pytest.raises(ValueError, match="negative"):
        wd.bincount(negative).compute()
    bad = wgprim.Monoid("a +* b", identity=0.0)  # WGSL the GPU compiler rejects
    with pytest.raises(wgprim.WgprimError, match="does not compile as WGSL"):
        wd.reduce(da.ones(10, dtype=np.float32, chunks=4), bad).compute()
    with pytest.raises(TypeError, match="not supported"):
        wd.sum(da.ones(10, dtype=np.float64, chunks=4))


def test_docs_example_runs(client, monkeypatch):
    """The README section's example (docs/dask.md, the same in README.md), at a small
    size, on this cluster."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = re.findall(r"```python\n(.*?)```", (root / "docs" / "dask.md").read_text(), re.S)[0]
    assert "```python\n" + code + "```" in (root / "README.md").read_text()
    code = code.replace("2**31", "2**16").replace("2**26", "2**12")
    cluster = client.cluster
    monkeypatch.setattr(wd, "gpu_cluster", lambda **kw: cluster)
    scope: dict = {}
    exec(compile(code, "docs/dask.md", "exec"), scope)
    x = scope["x"].compute()
    assert scope["counts"].sum().compute() == x.size
    np.testing.assert_array_equal(scope["top"], np.sort(x)[::-1][:10])
    np.testing.assert_array_equal(scope["s"].compute(), np.sort(x))
    assert abs(scope["total"] - x.astype(np.float64).sum()) <= wd.sum_error_bound(scope["x"], np.abs(x).sum(dtype=np.float64))
