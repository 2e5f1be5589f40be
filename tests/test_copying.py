"""Arrays copy and pickle as numpy arrays do (a copy of the data; pickle through the host);
plans and devices refuse with a TypeError that says what to do, and nothing is printed
from a finalizer of a half-copied GPU object."""
import copy
import pickle
import subprocess
import sys

import numpy as np
import pytest

import wgprim

DTYPES = [np.float32, np.int32, np.uint32, np.float64, np.int64, np.uint64, np.float16]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (0, 4), (1025,)])
def test_copies_and_pickles_hold_the_same_values_in_their_own_buffer(rng, dtype, shape):
    host = (rng.standard_normal(shape) * 1000).astype(dtype)
    a = wgprim.asarray(host)
    for made in (copy.copy(a), copy.deepcopy(a), a.copy(), pickle.loads(pickle.dumps(a)),
                 pickle.loads(pickle.dumps(a, protocol=2))):
        assert made.shape == a.shape and made.dtype == a.dtype
        assert made.buffer is not a.buffer
        np.testing.assert_array_equal(made.numpy(), host)


def test_a_copy_is_independent_of_its_original(rng):
    host = rng.integers(0, 100, 4096).astype(np.uint32)
    a = wgprim.asarray(host)
    b = copy.copy(a)
    c = wgprim.cumsum(b)  # results land elsewhere; the copy itself is what we check
    del a
    np.testing.assert_array_equal(b.numpy(), host)
    np.testing.assert_array_equal(c.numpy(), np.cumsum(host, dtype=np.uint32))


def test_views_in_a_container_pickle_as_their_values(rng):
    a = wgprim.asarray(np.arange(12, dtype=np.int32))
    box = {"a": a, "b": a.reshape(3, 4)}
    back = pickle.loads(pickle.dumps(box))
    np.testing.assert_array_equal(back["b"].numpy(), np.arange(12).reshape(3, 4))


@pytest.mark.parametrize("make", [lambda: wgprim.ReducePlan(100, np.float32), lambda: wgprim.ScanPlan(100, np.int32),
                                  lambda: wgprim.SortPlan(100, np.uint32), lambda: wgprim.device.get_device()],
                         ids=["ReducePlan", "ScanPlan", "SortPlan", "Device"])
@pytest.mark.parametrize("how", [pickle.dumps, copy.copy, copy.deepcopy], ids=["pickle", "copy", "deepcopy"])
def test_plans_and_devices_refuse_to_be_copied(make, how):
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        how(make())


def test_a_refused_copy_prints_nothing():
    code = ("import copy, pickle, numpy as np, wgprim\n"
            "for make in (lambda: wgprim.ScanPlan(100, np.float32), lambda: wgprim.SortPlan(64, np.float32)):\n"
            "    for how in (pickle.dumps, copy.deepcopy):\n"
            "        try: how(make())\n"
            "        except TypeError: pass\n"
            "import gc; gc.collect(); print('done')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr
