"""Sharing a wgpu device: use_device, Array.from_buffer, results bound by the caller's own
pipelines; a round trip through buffers created and read by plain wgpu code."""
import numpy as np
import pytest

import wgprim
from wgprim import device as device_module

DOUBLE = """
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x < arrayLength(&data)) { data[gid.x] = 2.0 * data[gid.x]; }
}
"""


@pytest.fixture
def user_device():
    import wgpu

    saved = device_module._current
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    dev = adapter.request_device_sync()  # default limits, no optional features
    yield dev
    device_module._current = saved


def test_round_trip_with_plain_wgpu(user_device, rng):
    import wgpu

    wgprim.use_device(user_device)
    x = rng.standard_normal((64, 33)).astype(np.float32)
    usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
    buf = user_device.create_buffer_with_data(data=x.tobytes() + b"\0" * 4, usage=usage)  # 16-byte rounding
    arr = wgprim.Array.from_buffer(buf, np.float32, x.shape)
    np.testing.assert_array_equal(arr.numpy(), x)
    s = wgprim.sort(arr)  # along the last axis, on the user's device
    total = wgprim.sum(arr, axis=0)
    # The result's buffer is bound by the user's own pipeline, no copy.
    module = user_device.create_shader_module(code=DOUBLE)
    pipe = user_device.create_compute_pipeline(layout="auto", compute={"module": module, "entry_point": "main"})
    bind = user_device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
        {"binding": 0, "resource": {"buffer": s.buffer, "offset": 0, "size": s.nbytes}}])
    encoder = user_device.create_command_encoder()
    cp = encoder.begin_compute_pass()
    cp.set_pipeline(pipe)
    cp.set_bind_group(0, bind)
    cp.dispatch_workgroups(-(-s.size // 64))
    cp.end()
    user_device.queue.submit([encoder.finish()])
    got = np.frombuffer(user_device.queue.read_buffer(s.buffer, 0, s.nbytes), np.float32).reshape(x.shape)
    np.testing.assert_array_equal(got, 2 * np.sort(x, axis=-1))
    np.testing.assert_allclose(total.numpy(), x.astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-4)


def test_from_buffer_says_which_usage_is_missing(user_device):
    import wgpu

    wgprim.use_device(user_device)
    buf = user_device.create_buffer(size=64, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
    with pytest.raises(ValueError, match="STORAGE | COPY_SRC"):
        wgprim.Array.from_buffer(buf, np.float32, (16,))
    buf = user_device.create_buffer(size=64, usage=wgpu.BufferUsage.STORAGE)
    with pytest.raises(ValueError, match="lacks COPY_SRC"):
        wgprim.Array.from_buffer(buf, np.float32, (16,))
    buf = user_device.create_buffer(size=32, usage=wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC)
    with pytest.raises(ValueError, match="holds 32 bytes"):
        wgprim.Array.from_buffer(buf, np.float32, (16,))


def test_use_device_checks_limits(monkeypatch):
    monkeypatch.setattr(device_module, "_check_gpu_device", lambda d: None)  # a stand-in for a GPUDevice

    class Small:
        limits = {"max-compute-workgroup-storage-size": 8192, "max-compute-invocations-per-workgroup": 256,
                  "max-compute-workgroup-size-x": 256, "max-storage-buffers-per-shader-stage": 8,
                  "max-storage-buffer-binding-size": 1 << 27}
        features = set()

    saved = device_module._current
    with pytest.raises(wgprim.WgprimError, match="max-compute-workgroup-storage-size = 8192"):
        wgprim.use_device(Small())
    assert device_module._current is saved


# -- Array.from_buffer: what it refuses, and exact-size buffers -------------------------
def _usage():
    import wgpu

    return wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST


def _exact(device, host: np.ndarray, usage=None):
    """An Array over a caller's buffer of exactly the data's bytes (rounded up to 4)."""
    data = host.tobytes() + b"\0" * (-host.nbytes % 4)
    buf = device.device.create_buffer_with_data(data=data, usage=usage or _usage())
    assert buf.size == len(data)
    return wgprim.Array.from_buffer(buf, host.dtype, host.shape)


def _read(array) -> np.ndarray:
    """A result read by plain wgpu (not through wgprim)."""
    raw = array.device.device.queue.read_buffer(array.buffer, 0, array.buffer.size)
    return np.frombuffer(raw, array.dtype, array.size).reshape(array.shape)


@pytest.mark.parametrize("shape", [(-1,), (2, -3), -4, 2.5, (2.5,), "6", ("6",), True, (True, 2), None])
def test_from_buffer_reads_a_shape_as_numpy_does(device, shape):
    buf = device.device.create_buffer(size=64, usage=_usage())
    with pytest.raises(Exception) as numpy_error:
        np.empty(shape, np.float32)
    with pytest.raises(numpy_error.type):
        wgprim.Array.from_buffer(buf, np.float32, shape)
    assert wgprim.Array.from_buffer(buf, np.float32, np.int64(16)).shape == (16,)


def test_from_buffer_refuses_what_is_not_a_gpu_buffer(device):
    with pytest.raises(TypeError, match="wgprim.asarray"):
        wgprim.Array.from_buffer(np.zeros(4, np.float32), np.float32, (4,))
    with pytest.raises(TypeError, match="GPUBuffer"):
        wgprim.Array.from_buffer(None, np.float32, (4,))
    buf = device.device.create_buffer(size=6, usage=_usage())  # 3 float16s / 6 bools: not whole words
    with pytest.raises(ValueError, match="multiple of 4.*size=8"):
        wgprim.Array.from_buffer(buf, np.bool_, (6,))


@pytest.mark.parametrize("n", list(range(1, 18)) + [255, 1027, 4097, 70_001])
def test_exact_size_buffers_in_and_out(device, n, rng):
    """A caller's buffer of exactly n floats (not a multiple of 16 bytes) as the input of
    several primitives and as `out=`: numpy's answers, and the caller's buffer holds the
    result afterwards."""
    x = (rng.standard_normal(n) * 10).astype(np.float32)
    a = _exact(device, x)
    np.testing.assert_array_equal(a.numpy(), x)
    assert wgprim.sum(a).item() == pytest.approx(x.astype(np.float64).sum(), rel=1e-4, abs=1e-3)
    np.testing.assert_allclose(wgprim.cumsum(a).numpy(), np.cumsum(x, dtype=np.float64), rtol=1e-4, atol=1e-3)
    assert np.array_equal(wgprim.sort(a).numpy().view(np.uint32), np.sort(x).view(np.uint32))
    assert np.array_equal(wgprim.argmax(a).item(), np.argmax(x))
    mask = x > 0
    assert np.array_equal(wgprim.compact(a, _exact(device, mask)).numpy(), x[mask])
    assert np.array_equal(wgprim.histogram(a, 7, range=(-10, 10))[0].numpy(), np.histogram(x, 7, range=(-10, 10))[0])
    ints = rng.integers(-50, 50, n).astype(np.int32)
    assert np.array_equal(wgprim.unique(_exact(device, ints)).numpy(), np.unique(ints))
    # out=: the plan writes a padded copy and copies it back into the caller's buffer
    out = _exact(device, np.zeros(n, np.float32))
    wgprim.ScanPlan(n, np.float32)(a, out=out)
    np.testing.assert_allclose(_read(out), np.cumsum(x, dtype=np.float64), rtol=1e-4, atol=1e-3)
    total = _exact(device, np.zeros((), np.int32))  # 4 bytes
    wgprim.ReducePlan(n, np.int32)(_exact(device, ints), out=total)
    assert _read(total) == ints.sum(dtype=np.int32)


def test_exact_size_buffers_of_every_primitive(device, rng):
    """Every registry entry with each input in a caller's exact-size buffer (4-byte words:
    bool masks rounded up to them) gives the entry's numpy answer."""
    from wgprim import registry

    n, ran = 1030, 0  # 4120 bytes of float32: not a multiple of 16
    for entry in registry.entries("demo"):
        if entry.missing() or not entry.min_n <= n <= entry.max_n:
            continue
        dtype = np.dtype(entry.dtypes[0])
        inputs = entry.make(rng, n, dtype)
        got = entry.call(wgprim, *(_exact(device, np.ascontiguousarray(a)) for a in inputs))
        got = tuple(g.numpy() for g in got) if isinstance(got, tuple) else got.numpy()
        assert (entry.same or registry.exact)(got, entry.numpy(*inputs), *inputs), entry.name
        ran += 1
    assert ran >= 40, ran


def test_exact_size_buffers_over_binding_chunks_and_in_a_batch(device, rng):
    from wgprim.device import binding_limit

    x = rng.standard_normal(3 * 4096 + 1001).astype(np.float32)
    a = _exact(device, x)
    with binding_limit(16384):  # a 4096-float tile per binding: the last window ends in the partial vec4
        assert wgprim.sum(a).item() == pytest.approx(x.astype(np.float64).sum(), rel=1e-4, abs=1e-3)
        assert np.array_equal(wgprim.compact(a, x > 0).numpy(), x[x > 0])
    out = _exact(device, np.zeros(x.size, np.float32))
    plan = wgprim.ScanPlan(x.size, np.float32)
    with wgprim.batch():
        s = wgprim.sort(a)
        plan(a, out=out)
    assert np.array_equal(s.numpy(), np.sort(x))
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, dtype=np.float64), rtol=1e-4, atol=1e-2)


def test_exact_size_buffers_make_no_gpu_object_on_repeat(device, rng):
    from support import counting

    x = rng.standard_normal(1027).astype(np.float32)
    a, out = _exact(device, x), _exact(device, np.zeros(x.size, np.float32))
    plan = wgprim.ScanPlan(x.size, np.float32)
    for _ in range(3):
        wgprim.sum(a), wgprim.cumsum(a), wgprim.sort(a), plan(a, out=out)
    with counting(device) as made:
        for _ in range(3):
            wgprim.sum(a), wgprim.cumsum(a), wgprim.sort(a), plan(a, out=out)
    assert dict(made) == {}


def test_an_exact_size_input_needs_no_copy_dst_but_a_result_does(device, rng):
    import wgpu

    x = rng.standard_normal(13).astype(np.float32)
    read_only = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC
    assert np.array_equal(wgprim.sort(_exact(device, x, read_only)).numpy(), np.sort(x))
    with pytest.raises(ValueError, match="COPY_DST"):
        wgprim.ScanPlan(13, np.float32)(x, out=_exact(device, x, read_only))
    assert np.array_equal(wgprim.sort(x).numpy(), np.sort(x))  # still usable


FOREIGN_AND_DESTROYED = """
import numpy as np, wgpu, wgprim
from wgprim.errors import WgprimError
usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
x = np.arange(13, dtype=np.float32)
other = wgpu.gpu.request_adapter_sync(power_preference="high-performance").request_device_sync()
try:  # a buffer of another wgpu device: once a Rust panic in the submit, the process gone
    wgprim.Array.from_buffer(other.create_buffer_with_data(data=x, usage=usage), np.float32, x.shape)
    raise AssertionError("a foreign buffer was accepted")
except ValueError as error:
    assert "use_device" in str(error), error
mine = wgprim.get_device().device
buf = mine.create_buffer_with_data(data=x, usage=usage)
a = wgprim.Array.from_buffer(buf, np.float32, x.shape)
assert wgprim.sum(a).item() == x.sum()  # bind groups and a recording kept for this buffer
buf.destroy()
for use in (lambda: wgprim.sum(a), lambda: a.numpy(), lambda: wgprim.cumsum(a), lambda: wgprim.sort(a)):
    try:  # once "a bug in wgprim", or the process aborted in the submit
        use()
        raise AssertionError("a destroyed buffer was used")
    except WgprimError as error:
        assert "destroyed" in str(error) and "bug in wgprim" not in str(error).replace("not a bug in wgprim", "")
try:
    with wgprim.batch():
        s = wgprim.cumsum(x)
        wgprim.sort(a)
    raise AssertionError("a destroyed buffer was used in a batch")
except WgprimError as error:
    assert "destroyed" in str(error)
assert np.array_equal(wgprim.cumsum(x).numpy(), np.cumsum(x)), "wgprim is still usable"
print("ok")
"""


def test_foreign_and_destroyed_buffers_are_refused_in_a_subprocess(tmp_path):
    import subprocess
    import sys

    from support import child_env

    done = subprocess.run([sys.executable, "-c", FOREIGN_AND_DESTROYED], capture_output=True, text=True,
                          timeout=300, env=child_env())
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr[-3000:]
