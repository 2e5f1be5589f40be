"""Memory of a process that meets ever new lengths (wgprim/memory.py, recordings.py,
api/memory.py): what wgprim caches follows the most bytes the program has in use at once,
not the number of lengths seen; empty_cache/free_all_blocks release all of it; every byte
is accounted; an evicted recording costs a re-recording, never a wrong result."""
import gc

import numpy as np
import pytest

import wgprim
from wgprim import memory, recordings


@pytest.fixture
def fresh(device, monkeypatch):
    """The pool from empty, its peak from zero, and no least limit: the bound is then the
    program's own (twice the peak in use), which small arrays reach in a few lengths."""
    gc.collect()
    wgprim.empty_cache()
    pool = wgprim.memory_pool()
    pool.reset_peak()
    monkeypatch.setattr(memory, "LIMIT_FLOOR", 0)
    yield pool
    monkeypatch.undo()
    gc.collect()
    wgprim.empty_cache()


def test_cached_bytes_follow_the_peak_in_use_not_the_lengths_seen(fresh, rng):
    lengths = [30_000 + 1237 * i for i in range(40)]  # each of its own size classes every few steps
    alive = wgprim.memory_stats()["used_bytes"]  # Arrays other tests keep (module fixtures)
    for i, n in enumerate(lengths):
        x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        s, c, u = wgprim.sort(x), wgprim.cumsum(x), wgprim.unique(x)
        if i % 8 == 0 or i == len(lengths) - 1:
            np.testing.assert_array_equal(s.numpy(), np.sort(x))
            np.testing.assert_array_equal(c.numpy(), np.cumsum(x, dtype=np.uint32))
            np.testing.assert_array_equal(u.numpy(), np.unique(x))
        del s, c, u
        stats = wgprim.memory_stats()
        # free blocks and kept recordings' temporaries each at most the limit (twice the
        # peak in use); parameter buffers are a few bytes per distinct shape, at most 1 MiB
        outside = stats["parameter_bytes"] + stats["staging_bytes"]
        assert outside <= 1 << 20
        assert stats["free_bytes"] <= stats["limit_bytes"] == memory.LIMIT_PEAKS * stats["peak_bytes"]
        assert stats["kept_recording_bytes"] <= stats["limit_bytes"]
        assert stats["cached_bytes"] <= 2 * memory.LIMIT_PEAKS * stats["peak_bytes"] + outside, (i, stats)
    # Unbounded, 40 lengths of these three calls would cache far more than that: the
    # recordings alone of the last few lengths hold several times one call's temporaries.
    assert stats["kept_recordings"] < 3 * len(lengths)
    # every result dropped: in use, what other tests keep plus at most building blocks' own
    # small tables (less than 1 MiB; 40 lengths of kept results would be ~25 MiB)
    assert alive <= stats["used_bytes"] <= alive + (1 << 20)


def test_empty_cache_releases_every_cached_byte_and_calls_after_it_are_right(fresh, rng):
    x = rng.integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32)
    alive = wgprim.asarray(x)
    plan = wgprim.ScanPlan(x.size, np.uint32)
    plan(alive)
    for _ in range(2):
        wgprim.sort(alive), wgprim.cumsum(alive), wgprim.unique(x)
    before = wgprim.memory_stats()
    assert before["kept_recordings"] and before["kept_recording_bytes"] and before["cached_bytes"]
    wgprim.empty_cache()
    after = wgprim.memory_stats()
    assert after["cached_bytes"] == after["free_bytes"] == after["kept_recording_bytes"] == 0
    assert after["kept_recordings"] == after["bind_groups"] == after["parameter_buffers"] == 0
    assert after["total_bytes"] == after["used_bytes"] >= memory.size_class(x.nbytes)  # live Arrays only
    np.testing.assert_array_equal(alive.numpy(), x)  # kept its data
    np.testing.assert_array_equal(wgprim.sort(alive).numpy(), np.sort(x))  # recorded again
    np.testing.assert_array_equal(wgprim.unique(alive).numpy(), np.unique(x))
    np.testing.assert_array_equal(plan(alive).numpy(), np.cumsum(x, dtype=np.uint32))  # a plan keeps its own


def test_free_all_blocks_is_empty_cache(fresh, rng):
    x = wgprim.asarray(rng.integers(0, 1000, 7000, dtype=np.uint32))
    wgprim.cumsum(x)
    assert wgprim.memory_stats()["kept_recordings"]
    wgprim.memory_pool().free_all_blocks()
    stats = wgprim.memory_stats()
    assert stats["cached_bytes"] == 0 and stats["kept_recordings"] == 0
    np.testing.assert_array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x.numpy(), dtype=np.uint32))


def test_empty_cache_releases_the_staging_buffers_of_large_copies(device, rng):
    from wgprim import transfer

    big = rng.integers(0, 2**32, (transfer.STAGED_FROM // 4) + 4096, dtype=np.uint64).astype(np.uint32)
    a = wgprim.asarray(big)  # through the staging buffers
    assert wgprim.memory_stats()["staging_bytes"] >= transfer.TransferPolicy.stage_bytes
    wgprim.empty_cache()
    assert wgprim.memory_stats()["staging_bytes"] == 0
    np.testing.assert_array_equal(a.numpy(), big)  # read back through new ones


def test_a_recording_evicted_for_bytes_is_recorded_again_and_right(fresh, rng, monkeypatch):
    x = rng.integers(0, 2**32, 40_000, dtype=np.uint64).astype(np.uint32)
    y = rng.integers(0, 2**32, 41_000, dtype=np.uint64).astype(np.uint32)
    ax, ay = wgprim.asarray(x), wgprim.asarray(y)
    wgprim.sort(ax)
    table = wgprim.get_device().cache("recordings")
    held = table.bytes
    assert held == wgprim.memory_stats()["kept_recording_bytes"] > 0
    # Room for one such recording, not two: keeping the other evicts it.
    monkeypatch.setattr(recordings, "RECORDING_SHARE", 1.0)
    wgprim.memory_pool().set_limit(int(held * 1.5))
    try:
        for _ in range(3):  # each evicts the other's recording
            np.testing.assert_array_equal(wgprim.sort(ay).numpy(), np.sort(y))
            np.testing.assert_array_equal(wgprim.sort(ax).numpy(), np.sort(x))
            assert table.bytes <= wgprim.memory_pool().get_limit()
    finally:
        wgprim.memory_pool().set_limit(None)


def test_a_collected_plan_gives_its_temporaries_back(device, rng):
    gc.collect()
    pool = wgprim.memory_pool()
    keys = wgprim.asarray(rng.integers(0, 2**32, 30_000, dtype=np.uint64).astype(np.uint32))
    plan = wgprim.SortPlan(keys.size, np.uint32)
    result = plan(keys).numpy()
    np.testing.assert_array_equal(result, np.sort(keys.numpy()))
    in_use = pool.used_bytes()
    del plan
    gc.collect()
    assert pool.used_bytes() < in_use  # its temporaries and result are the pool's again


@pytest.mark.parametrize("value, error", [(-1, ValueError), ("1", TypeError), (2.5, TypeError), (True, TypeError)])
def test_get_limit_gives_back_what_set_limit_took(device, value, error):
    pool = memory.MemoryPool(device, limit=0)
    assert pool.get_limit() == 0
    with pytest.raises(error, match="set_limit"):
        pool.set_limit(value)
    pool.set_limit(12345)
    assert pool.get_limit() == 12345


def test_threads_whose_recordings_evict_each_other_get_their_own_results(fresh, rng, monkeypatch):
    import threading

    # A budget of about one recording: every thread's call evicts another thread's, which
    # may be between finding its recording and submitting it.
    monkeypatch.setattr(recordings, "RECORDING_SHARE", 1.0)
    inputs = [rng.integers(0, 2**32, 20_000 + 1531 * i, dtype=np.uint64).astype(np.uint32) for i in range(6)]
    wgprim.sort(inputs[-1])
    wgprim.memory_pool().set_limit(int(wgprim.memory_stats()["kept_recording_bytes"] * 1.2))
    errors = []

    def work(x):
        try:
            for _ in range(6):
                if not np.array_equal(wgprim.sort(x).numpy(), np.sort(x)):
                    errors.append("wrong sort")
        except Exception as error:  # reported below
            errors.append(repr(error))

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        wgprim.memory_pool().set_limit(None)
    assert errors == []
