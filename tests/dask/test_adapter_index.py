"""An adapter chosen by its index in list_adapters(): WGPRIM_ADAPTER=<digits> and
use_adapter(int), as gpu_cluster pins its workers. Run in a fresh process: switching the
adapter would strand the Arrays of the other tests."""
import subprocess
import sys

import pytest

from support import child_env

SCRIPT = """
import os, numpy as np, wgprim
names = wgprim.list_adapters()
last = len(names) - 1
assert wgprim.get_device().summary == names[int(os.environ["WGPRIM_ADAPTER"])]
try:
    switched = wgprim.use_adapter(last)
except wgprim.WgprimError as error:  # an adapter listed but unusable here (a GL one without a display)
    if "could not open a device" not in str(error):
        raise
    print("unusable:", str(error).splitlines()[0])
    raise SystemExit(0)
assert switched.summary == names[last]
assert wgprim.sum(np.arange(10, dtype=np.int32)).item() == 45
try:
    wgprim.use_adapter(len(names))
except wgprim.NoAdapterError as error:
    assert "no adapter has index" in str(error) and names[0] in str(error)
else:
    raise AssertionError("an index past the adapters was accepted")
print("ok")
"""


def test_adapter_by_index():
    env = child_env(WGPRIM_ADAPTER="0")
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    if done.returncode == 0 and done.stdout.startswith("unusable:"):
        pytest.skip(f"the last adapter cannot open a device here ({done.stdout.strip()})")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
