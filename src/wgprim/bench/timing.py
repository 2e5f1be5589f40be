"""How each side is timed.

wgprim: GPU timestamps around every dispatch of one call, summed (the whole chain, no
host overhead), the median of `repeat` runs after a warm-up; and separately the
end-to-end time of a call from Python until its result is available on the host.
CUDA libraries: CUDA events around the call, median of `repeat`. numpy: wall clock.
"""
from __future__ import annotations

import time

import numpy as np


def median(values) -> float:
    return float(np.median(np.asarray(values, dtype=np.float64)))


def warm_gpu(device, ms: float = 2000.0) -> None:
    """Keep the GPU busy for a while so that its clocks are up before timing (an idle
    GPU starts at a fraction of its clock and ramps up under load)."""
    from wgprim.ops.reduce import ReducePlan

    x = np.ones(1 << 24, np.float32)
    plan = ReducePlan(x.size, np.float32, "sum")
    start = time.perf_counter()
    import wgprim

    gx = wgprim.asarray(x)
    while (time.perf_counter() - start) * 1e3 < ms:
        for _ in range(20):
            plan(gx)
        plan(gx).item()


def wgprim_gpu_ms(call, repeat: int) -> float | None:
    """Median GPU time of `call()` (all its dispatches), or None without timestamps."""
    from wgprim.program import profile

    call()  # warm-up: pipelines, pooled buffers
    times = []
    for _ in range(repeat):
        with profile() as steps:
            call()
        if not steps:
            return None
        times.append(sum(s.ms for s in steps))
    return median(times)


def wgprim_steps(call) -> list:
    """GPU time of each dispatch step of one call: where the time goes."""
    from wgprim.program import profile

    with profile() as steps:
        call()
    return [(s.label, s.ms) for s in steps]


def end_to_end_ms(call, to_host, repeat: int) -> float:
    """Median wall time from the call until its result is on the host."""
    to_host(call())
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        to_host(call())
        times.append((time.perf_counter() - start) * 1e3)
    return median(times)


def _event_ms(call, repeat: int, event, elapsed, synchronize) -> float:
    call()
    synchronize()
    start, stop = event(), event()
    times = []
    for _ in range(repeat):
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(elapsed(start, stop))
    return median(times)


def cuda_ms(call, repeat: int) -> float:
    """Median time of `call()` between two CUDA events (CuPy or PyTorch work; both on the
    legacy default stream, so unset CUPY_CUDA_PER_THREAD_DEFAULT_STREAM)."""
    import torch

    return _event_ms(call, repeat, lambda: torch.cuda.Event(enable_timing=True),
                     lambda a, b: a.elapsed_time(b), torch.cuda.synchronize)


def cupy_ms(call, repeat: int) -> float:
    """CUDA-event timing through CuPy alone (when PyTorch is not installed)."""
    import cupy

    return _event_ms(call, repeat, cupy.cuda.Event, cupy.cuda.get_elapsed_time,
                     cupy.cuda.Device().synchronize)


def host_ms(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(max(1, min(repeat, 5))):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return median(times)
