"""Reliability: plans shared by threads, one device per process, fork, the bounded buffer
pool, and errors that name the user's fix instead of blaming wgprim."""
import sys
import threading

import numpy as np
import pytest

import wgprim
from wgprim import device as device_module
from wgprim.errors import WgprimError


def _in_threads(work, threads=4):
    """Run work(thread_index) in `threads` threads started together; re-raise the first error."""
    errors, start = [], threading.Barrier(threads)

    def body(t):
        try:
            start.wait()
            work(t)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    pool = [threading.Thread(target=body, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join(300)
    assert not any(th.is_alive() for th in pool), "a thread hung"
    if errors:
        raise errors[0]


# -- plans shared between threads ----------------------------------------------------
def test_scan_plan_shared_by_threads_gives_every_thread_its_own_answer():
    n = 9000
    plan = wgprim.ScanPlan(n, np.int32, "sum")
    wrong = []

    def work(t):
        rng = np.random.default_rng(t)
        for _ in range(12):
            x = rng.integers(-100, 100, n).astype(np.int32)
            got = plan(x).numpy()  # the plan's own result: this thread's
            if not np.array_equal(got, np.cumsum(x, dtype=np.int32)):
                wrong.append(t)
            out = wgprim.empty((n,), np.int32)
            plan(wgprim.asarray(x), out=out)
            if not np.array_equal(out.numpy(), np.cumsum(x, dtype=np.int32)):
                wrong.append(t)

    _in_threads(work)
    assert not wrong


def test_reduce_plan_shared_by_threads_gives_every_thread_its_own_answer():
    n = 100_000
    plan = wgprim.ReducePlan(n, np.uint32, "sum")
    wrong = []

    def work(t):
        rng = np.random.default_rng(10 + t)
        for _ in range(12):
            x = rng.integers(0, 1000, n).astype(np.uint32)
            if plan(x).item() != x.sum(dtype=np.uint32):
                wrong.append(t)

    _in_threads(work)
    assert not wrong


def test_sort_plan_shared_by_threads_gives_every_thread_its_own_answer():
    n = 5000
    plan = wgprim.SortPlan(n, np.float32, what="argsort")
    wrong = []

    def work(t):
        rng = np.random.default_rng(20 + t)
        for _ in range(6):
            x = rng.standard_normal(n).astype(np.float32)
            if not np.array_equal(plan(x).numpy(), np.argsort(x, kind="stable")):
                wrong.append(t)

    _in_threads(work)
    assert not wrong


def test_plan_results_belong_to_the_calling_thread():
    plan = wgprim.ReducePlan(100, np.int32, "sum")
    mine = plan(np.ones(100, np.int32))
    seen = []
    _in_threads(lambda t: seen.append(plan(np.full(100, 2, np.int32)).item()), threads=2)
    assert seen == [200, 200] and mine.item() == 100  # other threads did not overwrite it


# -- one device per process ----------------------------------------------------------
def test_first_use_from_many_threads_opens_one_device(monkeypatch):
    monkeypatch.setattr(device_module, "_current", None)
    opened, real_open = [], device_module._open

    def slow_open(name):
        import time

        time.sleep(0.2)  # widen the window in which unlocked threads would all open one
        opened.append(name)
        return real_open(name)

    monkeypatch.setattr(device_module, "_open", slow_open)
    seen = []
    _in_threads(lambda t: seen.append(wgprim.get_device()))
    assert len(opened) == 1 and all(d is seen[0] for d in seen)


def test_arrays_of_two_devices_in_one_call_are_refused_naming_both():
    first = wgprim.get_device()
    second = device_module._open(None)  # a second device, as a user asking for one would get
    x = wgprim.asarray(np.arange(10, dtype=np.int32), device=second)
    mask = wgprim.asarray(np.arange(10) % 2 == 0)  # on the process's device
    with pytest.raises(ValueError, match="two devices") as info:
        wgprim.compact(x, mask)
    assert first.name in str(info.value) and second.name in str(info.value) and first.name != second.name
    assert wgprim.cumsum(x).numpy()[-1] == 45  # every input on `second`, as asked: fine
    with pytest.raises(ValueError, match="same device"):
        wgprim.ScanPlan(10, np.int32)(np.arange(10, dtype=np.int32), out=wgprim.empty((10,), np.int32, device=second))


def test_arrays_and_plans_from_before_use_adapter_name_the_fix():
    old, wanted = wgprim.get_device(), device_module._wanted_adapter
    x = wgprim.asarray(np.arange(10, dtype=np.int32))
    plan = wgprim.ReducePlan(10, np.int32, "sum")
    try:
        wgprim.use_adapter(None)
        for use in (lambda: wgprim.sum(x), lambda: x.numpy(), lambda: plan(np.arange(10, dtype=np.int32))):
            with pytest.raises(WgprimError, match="use_adapter"):
                use()
        assert wgprim.sum(np.arange(10, dtype=np.int32)).item() == 45  # the new device works
    finally:  # the session's device again, for the tests that follow
        device_module._current, device_module._wanted_adapter = old, wanted
        old.retired = False
    assert wgprim.get_device() is old


# -- batches: read from other threads, device switches inside one ----------------------
def test_a_result_of_another_threads_open_batch_is_refused_until_the_block_ends():
    """Thread A's batch queues work that is submitted when A's block ends: thread B reading
    its result before then (once 0.0 from a buffer never submitted) is refused, naming A;
    B may read what A's queued work only reads; after A's block, B reads the right value."""
    x = np.arange(1, 1001, dtype=np.float32)
    inputs = wgprim.asarray(x)
    queued, read, seen = threading.Event(), threading.Event(), {}

    def producer():
        with wgprim.batch():
            seen["sum"] = wgprim.sum(inputs)
            seen["cumsum"] = wgprim.cumsum(inputs)
            queued.set()
            read.wait(60)

    a = threading.Thread(target=producer, name="producer-A")
    a.start()
    try:
        assert queued.wait(60)
        for use in (lambda: seen["sum"].numpy(), lambda: seen["sum"].item(), lambda: float(seen["sum"]),
                    lambda: wgprim.max(seen["cumsum"])):
            with pytest.raises(WgprimError, match="open wgprim.batch\\(\\) of thread 'producer-A'"):
                use()
        assert np.array_equal(inputs.numpy(), x)  # only read by the queued work: fine
        assert wgprim.sum(x).item() == x.sum()  # this thread's own work is not held up
    finally:
        read.set()
        a.join(60)
    assert seen["sum"].item() == x.sum() and wgprim.max(seen["cumsum"]).item() == x.sum()


def test_switching_devices_inside_a_batch_is_refused_and_the_batch_goes_on():
    """use_adapter()/use_device() inside an open batch once lost the queued results ("a bug
    in wgprim"): refused, and the batch's work still runs at the end of the block."""
    device = wgprim.get_device()
    x = np.arange(10, dtype=np.int32)
    with wgprim.batch():
        total = wgprim.sum(x)
        with pytest.raises(WgprimError, match="use_adapter\\(\\) inside an open wgprim.batch"):
            wgprim.use_adapter(None)
        with pytest.raises(WgprimError, match="use_device\\(\\) inside an open wgprim.batch"):
            wgprim.use_device(device.device)
        running = wgprim.cumsum(x)
    assert wgprim.get_device() is device and not device.retired
    assert total.item() == 45 and np.array_equal(running.numpy(), np.cumsum(x))
    queued, done = threading.Event(), threading.Event()

    def other():  # another thread's batch holding queued work: refused here too
        with wgprim.batch():
            wgprim.sum(x)
            queued.set()
            done.wait(60)

    t = threading.Thread(target=other, name="batcher")
    t.start()
    try:
        assert queued.wait(60)
        with pytest.raises(WgprimError, match="thread 'batcher'"):
            wgprim.use_adapter(None)
    finally:
        done.set()
        t.join(60)
    assert wgprim.get_device() is device


# -- fork ------------------------------------------------------------------------------
# Both fork tests run in a fresh interpreter: a process forked from this test process
# would inherit the threads earlier tests left (Dask's event loop, for one), and a lock
# one of them held at the fork could stop the child before wgprim is reached.
FORK_AFTER_GPU_USE = """
import multiprocessing, sys
import numpy as np
import wgprim

def child(queue):
    try:
        queue.put(("ok", int(wgprim.sum(np.arange(10, dtype=np.uint32)).item())))
    except Exception as error:  # the parent checks the message
        queue.put(("error", f"{type(error).__name__}: {error}"))

if __name__ == "__main__":
    assert wgprim.sum(np.arange(10, dtype=np.uint32)).item() == 45  # the parent uses the GPU
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=child, args=(queue,))
    p.start()
    p.join(60)
    if p.is_alive():
        p.kill()
        sys.exit("the forked child hung on its first wgprim call")
    kind, message = queue.get(timeout=10)
    print(kind)
    print(message)
"""


def _run_script(tmp_path, text: str):
    import subprocess

    script = tmp_path / "fork.py"
    script.write_text(text)
    from support import child_env

    env = child_env()
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_forked_child_gets_a_clear_error_not_a_hang(tmp_path):
    done = _run_script(tmp_path, FORK_AFTER_GPU_USE)
    assert done.returncode == 0, done.stderr
    kind, message = done.stdout.split("\n", 1)
    assert kind == "ok" and message.strip() == "45" or kind == "error" and "spawn" in message, done.stdout


# -- errors that name the user's fix -------------------------------------------------
def test_gpu_out_of_memory_names_the_fix_not_a_bug(device, monkeypatch):
    import wgpu

    def no_memory(**kwargs):
        raise wgpu.GPUValidationError("In wgpuDeviceCreateBuffer: Not enough memory left.")

    wgprim.memory_pool().free_all_blocks()
    monkeypatch.setattr(device.device, "create_buffer", no_memory)
    with pytest.raises(MemoryError) as info:
        wgprim.empty((1000, 1000), np.float32)
    message = str(info.value)
    assert isinstance(info.value, WgprimError) and "out of memory" in message
    assert "3.8 MiB" in message and "smaller inputs" in message and "report" not in message


@pytest.mark.parametrize("combine, identity, says", [
    ("max(a,, b)", 0, "expected expression"),
    ("max(a, b) // the larger", 0, "comment"),
    ("a + 1u", 0, "does not compile"),  # u32 literal with i32 operands
    ("max(a, b)", "0u", "identity must be a number"),
    ("max(a, b)", None, "identity must be a number"),
    ("max(a, b)", 2**40, "outside the range of int32"),
    ("max(a, b)", 0.5, "not a int32 value"),
    ("", 0, "WGSL expression"),
])
def test_monoid_mistakes_are_the_users_value_errors(combine, identity, says):
    with pytest.raises(ValueError, match="Monoid 'mine'") as info:
        m = wgprim.Monoid(combine, identity, name="mine")
        for use in (wgprim.reduce, wgprim.scan):
            use(np.arange(10, dtype=np.int32), m)
    assert says in str(info.value) and "report" not in str(info.value)
    assert isinstance(info.value, wgprim.WgprimError)  # and a ValueError: the user's to fix


def test_monoid_is_checked_once_per_dtype(device, monkeypatch):
    m = wgprim.Monoid("min(a, b)", 2**31 - 1, name="smallest")
    x = np.arange(5000, dtype=np.int32)[::-1].copy()
    assert wgprim.reduce(x, m).item() == 0
    compiled = []
    real = device.device.create_shader_module
    monkeypatch.setattr(device.device, "create_shader_module", lambda **kw: compiled.append(kw["label"]) or real(**kw))
    assert wgprim.reduce(x[:4000], m).item() == 1000
    assert not any(label.startswith("monoid") for label in compiled)
    with pytest.raises(ValueError, match="outside the range of uint32"):
        wgprim.reduce(x.view(np.uint32), wgprim.Monoid("min(a, b)", -1))


def test_scan_exclusive_must_be_a_bool():
    for bad in ("no", "yes", 1, None):
        with pytest.raises(TypeError, match="exclusive must be True or False"):
            wgprim.scan(np.arange(5, dtype=np.int32), exclusive=bad)
        with pytest.raises(TypeError, match="exclusive must be True or False"):
            wgprim.ScanPlan(5, np.int32, exclusive=bad)
    np.testing.assert_array_equal(wgprim.scan(np.arange(5, dtype=np.int32), exclusive=np.bool_(True)).numpy(), [0, 0, 1, 3, 6])


# -- the command line and the plain install ---------------------------------------------
def test_version_flag(capsys):
    from wgprim.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"wgprim {wgprim.__version__}"


def test_plain_install_has_what_wgprim_check_needs():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("=")[0].split("[")[0].strip() for d in project["dependencies"]]
    assert "lark" in names and "matplotlib" not in names
    assert project["version"] == wgprim.__version__
    assert "check" in project["optional-dependencies"]  # `pip install wgprim[check]` keeps working


FORK_BEFORE_GPU_USE = """
import multiprocessing, sys
import numpy as np
import wgprim

def child(queue):
    queue.put(int(wgprim.sum(np.arange(10, dtype=np.uint32)).item()))

if __name__ == "__main__":
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=child, args=(queue,))
    p.start()
    p.join(120)
    if p.is_alive():
        p.kill()
        sys.exit("hung")
    print(queue.get(timeout=10))
    print(int(wgprim.sum(np.arange(5, dtype=np.uint32)).item()))  # the parent, after the fork
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_child_forked_before_any_gpu_use_opens_its_own_device(tmp_path):
    done = _run_script(tmp_path, FORK_BEFORE_GPU_USE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["45", "10"]


def test_pool_bound_can_be_set_from_the_environment(device, monkeypatch):
    from wgprim.memory import LIMIT_FLOOR, default_limit

    assert default_limit(device) == LIMIT_FLOOR  # without the variable: the floor, raised by use (docs/memory.md)
    monkeypatch.setenv("WGPRIM_POOL_MB", "64")
    assert default_limit(device) == 64 * 2**20
