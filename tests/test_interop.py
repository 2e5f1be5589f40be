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


def test_use_device_checks_limits():
    class Small:
        limits = {"max-compute-workgroup-storage-size": 8192, "max-compute-invocations-per-workgroup": 256,
                  "max-compute-workgroup-size-x": 256, "max-storage-buffers-per-shader-stage": 8,
                  "max-storage-buffer-binding-size": 1 << 27}
        features = set()

    saved = device_module._current
    with pytest.raises(wgprim.WgprimError, match="max-compute-workgroup-storage-size = 8192"):
        wgprim.use_device(Small())
    assert device_module._current is saved
