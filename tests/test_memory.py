"""The memory pool (wgprim/memory.py): a dropped result's buffer is reused, a live one
never; views, batches, threads and user-owned buffers keep theirs; the pool stays under
its bound and frees itself on out-of-memory."""
import gc
import threading

import numpy as np
import pytest

import wgprim
from wgprim.memory import MemoryPool, size_class
from wgprim.program import Program, batch


def test_size_classes_round_up_by_at_most_an_eighth():
    for n in [1, 15, 16, 17, 100, 1000, 4095, 4096, 4097, 10**6, 2**28 + 1, 3 * 2**29]:
        c = size_class(n)
        assert c >= n and c % 16 == 0
        assert c - n <= max(15, n // 8), n
    assert size_class(1000) == size_class(1001)  # nearby lengths share a class


def test_a_dropped_result_gives_its_buffer_to_the_next_call(device, rng):
    pool = wgprim.memory_pool()
    x = wgprim.asarray(rng.random(5000).astype(np.float32))
    first = wgprim.cumsum(x)
    buffer = first.buffer
    del first
    assert any(buffer is b for b in pool.free_buffers())
    made = pool.stats()["misses"]
    again = wgprim.cumsum(x)
    assert pool.stats()["misses"] == made  # nothing new: the result's class had a free buffer
    np.testing.assert_allclose(again.numpy(), np.cumsum(x.numpy()), rtol=1e-5)


def test_a_live_result_is_never_handed_out_again(device, rng):
    x = wgprim.asarray(rng.random(5000).astype(np.float32))
    results = [wgprim.cumsum(x) for _ in range(4)]
    assert len({id(r.buffer) for r in results}) == 4
    expected = np.cumsum(x.numpy(), dtype=np.float32)
    for r in results:
        np.testing.assert_allclose(r.numpy(), expected, rtol=1e-5)


def test_views_keep_the_buffer_of_the_array_they_view(device, rng):
    x = wgprim.asarray(rng.integers(0, 100, 4096, dtype=np.uint32))
    view = wgprim.cumsum(x).reshape(64, 64)  # the 1-D result itself is dropped at once
    gc.collect()
    others = [wgprim.cumsum(x) for _ in range(3)]
    assert all(o.buffer is not view.buffer for o in others)
    np.testing.assert_array_equal(view.numpy().ravel(), np.cumsum(x.numpy(), dtype=np.uint32))


def test_an_array_dropped_inside_a_batch_keeps_its_buffer_until_the_batch_runs(device, rng):
    data = rng.integers(0, 1000, 3000, dtype=np.uint32)
    with batch():
        total = wgprim.sum(wgprim.asarray(data))  # the input's Array is dropped at once
        gc.collect()
        # Another upload of the same size class would take a freed buffer and overwrite it
        # before the queued sum has run.
        decoys = [wgprim.asarray(np.full(3000, 7, np.uint32)) for _ in range(3)]
    assert total.item() == int(data.sum(dtype=np.uint32))
    assert all(d.numpy()[0] == 7 for d in decoys)


def test_results_from_many_threads_stay_their_own(device, rng):
    inputs = [rng.integers(0, 2**20, 2000 + 37 * i, dtype=np.uint32) for i in range(8)]
    errors = []

    def work(x):
        try:
            for _ in range(10):
                got = wgprim.sort(x).numpy()
                if not np.array_equal(got, np.sort(x)):
                    errors.append("wrong sort")
        except Exception as error:  # reported below
            errors.append(repr(error))

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_a_users_buffer_never_enters_the_pool(device):
    import wgpu

    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    mine = device.device.create_buffer(size=4096, usage=usage)
    device.device.queue.write_buffer(mine, 0, np.arange(1024, dtype=np.uint32))
    wrapped = wgprim.Array.from_buffer(mine, np.uint32, (1024,))
    assert wgprim.sum(wrapped).item() == int(np.arange(1024).sum())
    del wrapped
    gc.collect()
    pool = wgprim.memory_pool()
    assert all(mine is not b for b in pool.free_buffers())
    assert np.array_equal(np.frombuffer(device.device.queue.read_buffer(mine), np.uint32), np.arange(1024))


def test_the_pool_keeps_no_more_free_bytes_than_its_limit(device):
    import wgpu

    pool = MemoryPool(device, limit=3000)
    usage = wgpu.BufferUsage.STORAGE
    a, b, c = (pool.take(1024, usage) for _ in range(3))
    for buf in (a, b, c):
        pool.give_back(buf)
    assert pool.free_bytes() == 2048 and pool.take(1024, usage) is b  # a, the least recently freed, went; b is older than c
    with pytest.raises(Exception):
        device.device.queue.write_buffer(a, 0, np.zeros(4, np.uint32))  # destroyed
    pool.free_all_blocks()
    assert pool.free_bytes() == 0
    assert pool.stats()["hits"] == 1


def test_out_of_memory_frees_the_cache_and_tries_once_more(device, monkeypatch):
    import wgpu

    pool = MemoryPool(device)
    usage = wgpu.BufferUsage.STORAGE
    pool.give_back(pool.take(4096, usage))
    assert pool.free_bytes()
    real = device.device.create_buffer
    calls = []

    def once_full(**kwargs):
        calls.append(kwargs["size"])
        if len(calls) == 1:
            raise wgpu.GPUValidationError("Not enough memory left.")
        return real(**kwargs)

    monkeypatch.setattr(device.device, "create_buffer", once_full)
    assert pool.take(1 << 20, usage).size >= 1 << 20
    assert len(calls) == 2 and pool.free_bytes() == 0


def test_one_shot_calls_of_many_lengths_keep_the_pool_under_its_bound(device, rng):
    pool = wgprim.memory_pool()
    saved = pool._fixed
    pool.set_limit(1 << 20)
    try:
        for i in range(30):
            x = rng.integers(0, 2**32, 20_000 + 997 * i, dtype=np.uint64).astype(np.uint32)
            if i % 4 == 0:
                np.testing.assert_array_equal(wgprim.sort(x).numpy(), np.sort(x))
            else:
                wgprim.argsort(x)
            assert pool.free_bytes() <= 1 << 20
        assert pool.free_bytes() == sum(b.size for b in pool.free_buffers())
    finally:
        pool.set_limit(saved)


def test_the_default_limit_follows_the_most_bytes_in_use_at_once(device, monkeypatch):
    import wgpu

    from wgprim import memory

    usage = wgpu.BufferUsage.STORAGE
    pool = MemoryPool(device)
    assert pool.get_limit() == memory.LIMIT_FLOOR and not pool.stats()["limit_fixed"]
    monkeypatch.setattr(memory, "LIMIT_FLOOR", 4096)  # as if the least limit were 4 KiB
    blocks = [pool.take(2048, usage) for _ in range(4)]  # one call's 8 KiB at once
    assert pool.peak_bytes() == 8192 and pool.get_limit() == memory.LIMIT_PEAKS * 8192
    for b in blocks:
        pool.give_back(b)
    assert pool.free_bytes() == 8192 and pool.used_bytes() == 0  # all kept: the next call finds them
    again = [pool.take(2048, usage) for _ in range(4)]
    assert {id(b) for b in again} == {id(b) for b in blocks} and pool.stats()["hits"] == 4
    pool.set_limit(2048)  # fixed: no longer follows the peak
    for b in again:
        pool.give_back(b)
    assert pool.free_bytes() == 2048 and pool.stats()["limit_fixed"]
    pool.set_limit(None)
    assert pool.get_limit() == memory.LIMIT_PEAKS * 8192
    pool.reset_peak()  # nothing in use now: back to the least limit
    assert pool.peak_bytes() == 0 and pool.get_limit() == 4096
    pool.free_all_blocks()
    assert pool.total_bytes() == 0


def test_a_program_pins_what_it_binds_until_it_is_submitted(device):
    p = Program(device, "pins")
    x = wgprim.asarray(np.arange(16, dtype=np.uint32))
    out = wgprim.empty((16,), np.uint32)
    p.copy(x.buffer, 0, out.buffer, 0, 64)
    pool = wgprim.memory_pool()
    assert pool.pinned(x.buffer)
    buffer = x.buffer
    del x
    gc.collect()
    assert all(buffer is not b for b in pool.free_buffers())  # held back
    p.run()
    assert not pool.pinned(buffer)
    assert out.numpy().tolist() == list(range(16))


def test_zeros_are_zero_even_from_a_reused_buffer(device):
    ones = wgprim.asarray(np.ones(1000, np.float32))
    del ones
    gc.collect()
    assert not wgprim.zeros((1000,), np.float32).numpy().any()


def test_every_primitive_is_right_when_the_pool_hands_out_garbage(tmp_path):
    # WGPRIM_POISON fills every storage buffer the pool hands out, new or reused, with one
    # byte: a kernel that assumes a zeroed buffer (counters, padding) fails here at once.
    import subprocess
    import sys

    from support import child_env

    env = child_env(WGPRIM_POISON="0xAB")
    done = subprocess.run([sys.executable, "-m", "wgprim", "demo", "-n", "3000"], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "ok" in done.stdout.splitlines()[-1], done.stdout + done.stderr


GC_INSIDE_LOCKS = """
import gc
import threading
import numpy as np
import wgprim
from wgprim import lru, recordings


class CollectingLock:
    # Collects garbage right after taking the lock: finalizers then run inside the critical
    # section, as they may at any allocation there.
    def __init__(self):
        self.lock = threading.RLock()

    def __enter__(self):
        self.lock.acquire()
        gc.collect()
        return self

    def __exit__(self, *exc):
        self.lock.release()


lru.new_lock = CollectingLock  # every cache table made from here on (the device's first)
x = wgprim.asarray(np.arange(5000, dtype=np.uint32))
wgprim.memory_pool()._lock = CollectingLock()
recordings._recordings_lock = CollectingLock()
for i in range(20):
    cycle = [wgprim.cumsum(x), wgprim.sort(x), wgprim.compact(x, x.numpy() % 3 == 0)]
    cycle.append(cycle)  # garbage that only a collection frees
    del cycle
assert wgprim.sum(x).item() == int(np.arange(5000).sum())
print("ok")
"""


def test_arrays_collected_inside_the_pools_critical_sections_do_not_deadlock(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "gc_inside_locks.py"
    script.write_text(GC_INSIDE_LOCKS)
    from support import child_env

    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=180, env=child_env())
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


@pytest.mark.parametrize("text", ["abc", "inf", "nan", "-1", "1e400", "64MB"])
def test_a_bad_pool_size_in_the_environment_names_the_variable(device, monkeypatch, text):
    monkeypatch.setenv("WGPRIM_POOL_MB", text)
    with pytest.raises(ValueError, match="WGPRIM_POOL_MB"):
        MemoryPool(device)


@pytest.mark.parametrize("text, nbytes", [("64", 64 << 20), (" 0.5 ", 1 << 19), ("0", 0), ("", None)])
def test_the_pool_size_in_the_environment_is_mib(device, monkeypatch, text, nbytes):
    monkeypatch.setenv("WGPRIM_POOL_MB", text)
    pool = MemoryPool(device)
    assert pool.stats()["limit_fixed"] is (nbytes is not None)
    if nbytes is not None:
        assert pool.limit == nbytes


@pytest.mark.parametrize("value, error", [(-1, ValueError), ("100", TypeError), (b"10", TypeError),
                                          (True, TypeError), (1.5, TypeError), (np.float32(2), TypeError)])
def test_set_limit_takes_a_byte_count_or_none(device, value, error):
    pool = MemoryPool(device, limit=0)
    with pytest.raises(error, match="set_limit"):
        pool.set_limit(value)
    pool.set_limit(np.int64(4096))
    assert pool.limit == 4096
    pool.set_limit(None)
    assert not pool.stats()["limit_fixed"]
