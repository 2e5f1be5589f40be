"""The hot path's few wgpu-native calls made directly, each with wgpu-py's public path beside
it as the fallback (and the reference the tests compare it with).

Direct calls on the handles wgpu-py's objects hold cost about half of wgpu-py's per-call
wrapping (descriptor structs, error capture, Python objects for every pass and command
buffer; measured in docs/design.md). So a Program's passes are encoded here by direct calls; `finish` and `submit` still go through wgpu-py's error-capturing calls, which
is where wgpu-native reports what went wrong while encoding, so errors surface as before.

A map for reading uses wgpu-py's "READ_NOSYNC" mode (an internal one: the public "READ"
first submits an empty command buffer): waiting on wgpu-py's poll thread measured faster
than spinning on non-blocking polls or blocking polls on the calling thread. If either private entry point is missing (another wgpu-py),
the public calls are used: PUBLIC forces them (tests compare the two).
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading

PUBLIC = bool(os.environ.get("WGPRIM_PUBLIC_CALLS"))

try:  # wgpu-py's own handles on wgpu-native; absent in another backend or version
    from wgpu.backends.wgpu_native._api import libf as _libf
    from wgpu.backends.wgpu_native._ffi import ffi as _ffi, lib as _lib

    _NULL = _ffi.NULL
    _AVAILABLE = all(hasattr(_lib, name) for name in (
        "wgpuDeviceCreateCommandEncoder", "wgpuCommandEncoderBeginComputePass", "wgpuComputePassEncoderSetPipeline",
        "wgpuComputePassEncoderSetBindGroup", "wgpuComputePassEncoderDispatchWorkgroups", "wgpuComputePassEncoderEnd",
        "wgpuComputePassEncoderRelease", "wgpuCommandEncoderCopyBufferToBuffer", "wgpuCommandEncoderClearBuffer",
        "wgpuCommandEncoderFinish", "wgpuQueueSubmit", "wgpuCommandBufferRelease", "wgpuCommandEncoderRelease"))
except Exception:  # pragma: no cover - depends on the installed wgpu
    _AVAILABLE = False


def direct() -> bool:
    """Whether passes are encoded by direct calls (else through wgpu-py's objects)."""
    return _AVAILABLE and not PUBLIC


def submit_steps(device, steps, copy_type, clear_type) -> None:
    """Encode `steps` (dispatch steps with .pipeline, .bind_group, .grid; copies; clears) into
    one command buffer and submit it on the device's queue."""
    if not direct():
        _submit_public(device, steps, copy_type, clear_type)
        return
    lib = _lib
    encoder = lib.wgpuDeviceCreateCommandEncoder(device.device._internal, _NULL)
    try:
        cp = None
        for step in steps:
            kind = type(step)
            if kind is copy_type or kind is clear_type:
                if cp is not None:
                    lib.wgpuComputePassEncoderEnd(cp)
                    lib.wgpuComputePassEncoderRelease(cp)
                    cp = None
                if kind is copy_type:
                    lib.wgpuCommandEncoderCopyBufferToBuffer(encoder, step.src._internal, step.src_offset,
                                                             step.dst._internal, step.dst_offset, step.nbytes)
                else:
                    lib.wgpuCommandEncoderClearBuffer(encoder, step.buffer._internal, step.offset, step.nbytes)
                continue
            if cp is None:
                cp = lib.wgpuCommandEncoderBeginComputePass(encoder, _NULL)
            lib.wgpuComputePassEncoderSetPipeline(cp, step.pipeline._internal)
            lib.wgpuComputePassEncoderSetBindGroup(cp, 0, step.bind_group._internal, 0, _NULL)
            lib.wgpuComputePassEncoderDispatchWorkgroups(cp, step.grid[0], step.grid[1], 1)
        if cp is not None:
            lib.wgpuComputePassEncoderEnd(cp)
            lib.wgpuComputePassEncoderRelease(cp)
        command_buffer = _libf.wgpuCommandEncoderFinish(encoder, _NULL)  # raises what encoding got wrong
    finally:
        lib.wgpuCommandEncoderRelease(encoder)
    try:
        buffers = _ffi.new("WGPUCommandBuffer[1]", [command_buffer])
        _libf.wgpuQueueSubmit(device.device.queue._internal, 1, buffers)
    finally:
        lib.wgpuCommandBufferRelease(command_buffer)


def _submit_public(device, steps, copy_type, clear_type) -> None:
    encoder = device.device.create_command_encoder()
    cp = None
    for step in steps:
        kind = type(step)
        if kind is copy_type or kind is clear_type:
            if cp is not None:
                cp.end()
                cp = None
            if kind is copy_type:
                encoder.copy_buffer_to_buffer(step.src, step.src_offset, step.dst, step.dst_offset, step.nbytes)
            else:
                encoder.clear_buffer(step.buffer, step.offset, step.nbytes)
            continue
        if cp is None:
            cp = encoder.begin_compute_pass()
        cp.set_pipeline(step.pipeline)
        cp.set_bind_group(0, step.bind_group)
        cp.dispatch_workgroups(step.grid[0], step.grid[1], 1)
    if cp is not None:
        cp.end()
    device.device.queue.submit([encoder.finish()])


class _Copy:
    __slots__ = ("src", "src_offset", "dst", "dst_offset", "nbytes")

    def __init__(self, src, src_offset, dst, dst_offset, nbytes):
        self.src, self.src_offset, self.dst, self.dst_offset, self.nbytes = src, src_offset, dst, dst_offset, nbytes


def read_through(device, buffer, offset: int, nbytes: int, stage) -> bytes:
    """Copy `nbytes` of `buffer` from `offset` into the MAP_READ buffer `stage` (one submit),
    map it and return the bytes."""
    size = -(-nbytes // 4) * 4
    submit_steps(device, [_Copy(buffer, offset, stage, 0, size)], _Copy, None)
    return map_read(stage, nbytes)


def map_read(buffer, nbytes: int) -> bytes:
    """Map the first `nbytes` of a MAP_READ `buffer` (whose copy is already submitted),
    return them, unmap."""
    size = -(-nbytes // 4) * 4
    map_now(buffer, "READ_NOSYNC" if direct() else "READ", 0, size)
    try:
        return bytes(buffer.read_mapped(0, size, copy=False))[:nbytes]
    finally:
        unmap_now(buffer)


def map_now(buffer, mode, offset: int, size: int) -> None:
    """Map `buffer` and wait until it is mapped. An interrupt during the wait (Ctrl-C) must
    not leave the buffer pending: the map was asked for and completes anyway, and the
    buffer's next user (the memory pool's next read, the next staged copy) would find it
    pending or mapped, which wgpu refuses or aborts the process on. So the wait is finished
    first (it ends when the GPU reaches the work submitted before; further interrupts wait
    for it too), the buffer unmapped, and the interrupt raised again. A Ctrl-C inside the
    map request itself is held until the request has returned its promise."""
    promise = None
    try:
        with sigint_held():
            promise = buffer.map_async(mode, offset, size)
        promise.sync_wait()
    except BaseException:
        if promise is not None:
            settle_map(buffer, promise)
        raise


def unmap_now(buffer) -> None:
    """buffer.unmap(), with a Ctrl-C held until wgpu's own state says unmapped too."""
    with sigint_held():
        buffer.unmap()


def settle_map(buffer, promise) -> None:
    """Finish an interrupted map of `buffer` and leave it unmapped (see map_now)."""
    while True:
        try:
            promise.sync_wait()
            break
        except KeyboardInterrupt:
            continue
        except Exception:  # the map failed (the buffer destroyed): nothing is mapped
            break
    if buffer.map_state == "mapped":
        unmap_now(buffer)


@contextlib.contextmanager
def sigint_held():
    """Hold a SIGINT (Ctrl-C) that arrives inside the block and raise it as the block ends:
    for the few wgpu calls that change a buffer's state in two steps (the native call,
    then wgpu's own record of it). In the main thread only, where Python runs its signal
    handlers; elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    try:
        previous = signal.signal(signal.SIGINT, lambda number, frame: held.append(frame))
    except ValueError:  # signals unavailable here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            if callable(previous):
                previous(signal.SIGINT, held[0])
            elif previous == signal.SIG_DFL:
                raise KeyboardInterrupt
