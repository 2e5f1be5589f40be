import os

import numpy as np
import pytest

os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")


@pytest.fixture(scope="session")
def device():
    import wgprim

    return wgprim.get_device()


@pytest.fixture
def rng(request):
    # One seed per test, stable across runs: failures reproduce.
    import zlib

    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
