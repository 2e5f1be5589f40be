"""Repeated one-shot calls: once a call of a shape has run, the same call again makes no GPU
object — no buffer, bind group, pipeline or shader module — for every entry of the registry
(every primitive the README lists) and its every dtype; and plans make none either."""
import gc

import numpy as np
import pytest

import wgprim
from wgprim import registry

from support import counting, counting_submits

CASES = [pytest.param(p, dt, id=f"{p.name}-{dt}") for p in registry.entries("demo") for dt in p.dtypes]


@pytest.fixture(scope="module", autouse=True)
def no_garbage_from_earlier_tests():
    """Arrays kept in reference cycles by earlier tests (an exception's frames) would go back
    to the pool whenever the garbage collector runs, maybe inside a measured loop, and a call
    handed such an older buffer records anew: collected once before this module's tests.
    The per-device caches start empty too: thousands of earlier tests fill the bounded ones
    (kept recordings, building blocks, bind groups), and what they evict then is the suite's
    history, not the call under test."""
    from wgprim.recordings import forget_recordings

    gc.collect()
    device = wgprim.get_device()
    forget_recordings(device)
    for name in ("lookup", "bind groups", "bind groups by buffer"):
        device.cache(name).clear()
    wgprim.memory_pool(device).free_all_blocks()


@pytest.fixture(autouse=True)
def no_collection_while_measuring():
    """...and no collection during a test (a full one per test costs seconds once the
    suite's heap is large): what a test frees, it frees by reference counts, in order."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("n", [1000, 70_001])
@pytest.mark.parametrize("entry, dtype", CASES)
def test_a_repeated_call_makes_no_gpu_object(device, entry, dtype, n, rng):
    if entry.missing() or not entry.min_n <= n <= entry.max_n:
        pytest.skip(entry.missing() or "size out of the entry's range")
    if np.dtype(dtype) == np.float16 and not device.has_f16:
        pytest.skip("no shader-f16")
    inputs = tuple(wgprim.asarray(a) for a in entry.make(rng, n, np.dtype(dtype)))
    for _ in range(3):  # the first calls make what the shape needs (and the pool fills)
        entry.call(wgprim, *inputs)
    with counting(device) as made:
        for _ in range(3):
            result = entry.call(wgprim, *inputs)
            del result
    assert dict(made) == {}, f"{entry.name}: {dict(made)}"


def test_a_scalar_read_makes_no_gpu_object(device, rng):
    x = wgprim.asarray(rng.random(5000).astype(np.float32))
    wgprim.sum(x).item()
    x.numpy()  # the first read of each size takes a staging buffer from the pool
    with counting(device) as made:
        for _ in range(5):
            wgprim.sum(x).item()
            x.numpy()
    assert dict(made) == {}


def test_plans_make_no_gpu_object_once_built(device, rng):
    x = wgprim.asarray(rng.random(70_000).astype(np.float32))
    keys = wgprim.asarray(rng.integers(0, 2**32, 70_000, dtype=np.uint64).astype(np.uint32))
    plans = [(wgprim.ReducePlan(x.size, np.float32), x), (wgprim.ScanPlan(x.size, np.float32), x),
             (wgprim.SortPlan(keys.size, np.uint32), keys)]
    for plan, arg in plans:
        plan(arg)
    with counting(device) as made:
        for _ in range(3):
            for plan, arg in plans:
                plan(arg)
    assert dict(made) == {}


def test_a_call_in_a_batch_makes_no_gpu_object_on_repeat(device, rng):
    x = wgprim.asarray(rng.random(5000).astype(np.float32))
    for _ in range(4):  # two results of each are alive at a time: more than one warm-up call
        with wgprim.batch():
            a, b = wgprim.min(x), wgprim.cumsum(x)
    with counting(device) as made:
        with wgprim.batch():
            a, b = wgprim.min(x), wgprim.cumsum(x)
    assert dict(made) == {}
    assert a.item() == x.numpy().min()


@pytest.mark.parametrize("how", ["sum", "atomic max", "plan"])
def test_a_reduction_is_read_with_the_submit_that_made_it(device, rng, how):
    x = wgprim.asarray(rng.random(5000).astype(np.float32))
    plan = wgprim.ReducePlan(x.size, np.float32, "sum")
    call = {"sum": lambda: wgprim.sum(x), "atomic max": lambda: wgprim.max(x, method="atomic"),
            "plan": lambda: plan(x)}[how]
    expected = x.numpy().max() if how == "atomic max" else None
    call().item()
    with counting_submits() as made:
        value = call().item()
    assert made["submits"] == 1  # the copy out went with the reduction: .item() only maps
    if expected is not None:
        assert value == expected
    else:
        assert abs(value - x.numpy().astype(np.float64).sum()) < 1e-2


def test_a_staged_result_written_again_is_read_anew(device, rng):
    x = wgprim.asarray(np.arange(100, dtype=np.float32))
    y = wgprim.asarray(np.arange(100, dtype=np.float32) * 2)
    plan = wgprim.ReducePlan(100, np.float32, "sum")
    first = plan(x)
    view = first.reshape(1)  # shares the buffer (and its staged copy)
    assert first.item() == 4950.0
    again = plan(y)  # the plan's own result, written again
    assert again is first and first.item() == 9900.0 and view.numpy()[0] == 9900.0
    out = wgprim.sum(x)
    out.item()  # staged
    plan(y, out=out.reshape(1).reshape(()))  # written through a view: the staged copy is stale
    assert out.item() == 9900.0
    with wgprim.batch():  # queued work stages nothing; the read submits it
        queued = wgprim.sum(y)
        assert queued.block.staged is None
    assert queued.item() == 9900.0
