"""How each side is timed: k runs back to back, on the GPU's own clock.

wgprim: the Programs one call records are captured (inside `wgprim.batch()`, so nothing
runs) and encoded k times into one command buffer, with a GPU timestamp before the first
run and after each run; one submit. A call that needs the host between its dispatches
(it reads a count back, e.g. compaction) cannot be captured whole: it is called k times,
each call timed by the timestamps of its own dispatches (`wgprim.profiling.profile`).
CuPy and PyTorch: CUDA events before the first call and after each call. numpy: the
host's clock. Each timing also returns the wall time of the same k runs (submit to
completion): a GPU time above it means the timestamps are misread.

What a user feels is timed apart from that (`PerCallTimer`), the same way for every
side, on the host's clock: `call_ms`, the wall time per call of N one-shot calls back to
back (results dropped) and one sync at the end; `latency_ms`, one call and a read of its
first element. The sync and the read: for wgprim 4 bytes of the result's buffer
(`wgprim.transfer.read`; `.item()` of a 0-d result), for CuPy and PyTorch the device's
synchronize and `.item()` of the result (0-d) or of its first element.

GPU timestamps count ticks of the adapter's timestamp period. wgpu-native returns raw
ticks from a resolved query set (it converts them to nanoseconds only when the instance
is created with its automatic-normalization flag, which wgpu-py does not set), and
reports the period through wgpuQueueGetTimestampPeriod: 1.0 ns on NVIDIA and lavapipe,
52 or 83 ns on some Intel GPUs. `timestamp_period` reads it; every GPU time here is
ticks x period.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Timing:
    """One timed round: k runs."""

    ms: float  # per run: total / k
    wall_ms: float  # per run: wall clock of the same k runs, from submit to completion
    per_run: list = field(default_factory=list)  # each run's own time, where measured


def timestamp_period(device) -> float:
    """Nanoseconds per GPU timestamp tick on this device (1.0 when it cannot be asked)."""
    cache = device.cache("bench")
    if "period" not in cache:
        period = 1.0
        try:
            from wgpu.backends.wgpu_native._ffi import lib

            period = float(lib.wgpuQueueGetTimestampPeriod(device.device.queue._internal))
        except Exception:  # another backend or binding: wgpu's default unit, ns
            pass
        cache["period"] = period if period > 0 else 1.0
    return cache["period"]


def profile_scale(device) -> float:
    """Factor from `wgprim.profiling.profile()` milliseconds to real ones: that profiler
    reads ticks as nanoseconds unless it says it applies the period itself."""
    from wgprim.profiling import Profiler

    return 1.0 if getattr(Profiler, "applies_timestamp_period", False) else timestamp_period(device)


# -- wgprim: captured programs, k runs in one submit ---------------------------------------
def capture(call):
    """(programs, result) of one call recorded but not run; programs is None when the call
    submitted part of its work itself (it needs the host between dispatches)."""
    from wgprim.program import batch

    with batch() as queued:
        result = call()
        programs = queued.take()  # ours to run, not the batch's (SubmitTimer.release frees them)
    return programs, result


def labels_of(programs) -> list[str]:
    """The labels of the programs' dispatches (copies and clears are not timed steps)."""
    return [step.label for p in programs for step in p.steps if hasattr(step, "label")]


def profiled_labels(call) -> list[str]:
    """The labels of every dispatch one call runs, in order (empty without timestamps)."""
    from wgprim.profiling import profile

    with profile() as steps:
        call()
    return [s.label for s in steps]


class SubmitTimer:
    """Times captured programs run k times in one command buffer."""

    def __init__(self, device, programs: list, k: int):
        import wgpu

        self.device, self.programs, self.k = device, programs, k
        self.marks = k + 1
        self.query = device.device.create_query_set(type=wgpu.QueryType.timestamp, count=self.marks)
        self.resolved = device.device.create_buffer(
            size=8 * self.marks, usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC)
        self.period = timestamp_period(device)

    def _mark(self, encoder, index: int) -> None:
        # An empty pass whose only job is its timestamp: needs only "timestamp-query", and
        # is written once the work before it is done (Vulkan: bottom of pipe).
        cp = encoder.begin_compute_pass(timestamp_writes={"query_set": self.query,
                                                          "beginning_of_pass_write_index": index})
        cp.end()

    def run(self) -> Timing:
        dev = self.device.device
        encoder = dev.create_command_encoder()
        self._mark(encoder, 0)
        for i in range(self.k):
            for program in self.programs:
                program.encode(encoder)
            self._mark(encoder, i + 1)
        encoder.resolve_query_set(self.query, 0, self.marks, self.resolved, 0)
        commands = encoder.finish()
        start = time.perf_counter()
        dev.queue.submit([commands])
        ticks = np.frombuffer(dev.queue.read_buffer(self.resolved, 0, 8 * self.marks), np.uint64).astype(np.float64)
        wall = (time.perf_counter() - start) * 1e3
        runs = np.diff(ticks) * self.period / 1e6
        total = (ticks[-1] - ticks[0]) * self.period / 1e6
        return Timing(total / self.k, wall / self.k, [float(r) for r in runs])

    def release(self, programs: bool = True) -> None:
        """Give back the query set and (unless another timer runs them) the programs'
        temporaries."""
        if programs:
            for program in self.programs:
                program.release()
        self.query.destroy()
        self.resolved.destroy()


class CallTimer:
    """Times a call that cannot be captured: k calls, each the sum of its dispatches' GPU
    timestamps; the wall time covers the k calls with their host work in between."""

    def __init__(self, device, call, k: int):
        self.call, self.k, self.scale = call, k, profile_scale(device)

    def run(self) -> Timing:
        from wgprim.profiling import profile

        runs = []
        start = time.perf_counter()
        for _ in range(self.k):
            with profile() as steps:
                self.call()
            runs.append(sum(s.ms for s in steps) * self.scale)
        wall = (time.perf_counter() - start) * 1e3
        return Timing(sum(runs) / self.k, wall / self.k, runs)

    def release(self) -> None:
        pass


def steps_ms(device, call) -> list:
    """(label, ms) of each dispatch of one call: where the time goes."""
    from wgprim.profiling import profile

    scale = profile_scale(device)
    with profile() as steps:
        call()
    return [(s.label, s.ms * scale) for s in steps]


def call_gpu_ms(call) -> float:
    """GPU time of one call: the sum of its dispatches' timestamps."""
    from wgprim.device import get_device

    return sum(ms for _, ms in steps_ms(get_device(), call))


def cuda_call_ms(lib: str, call) -> float:
    """GPU time of one call of a CUDA library ("torch" or "cupy"), by CUDA events."""
    import importlib

    t = CudaTimer(lib, importlib.import_module(lib), call, 1).run()
    return t.ms


def end_to_end_ms(call, to_host) -> float:
    """Wall time from the call until its result is on the host."""
    start = time.perf_counter()
    to_host(call())
    return (time.perf_counter() - start) * 1e3


# -- CUDA libraries and the host ---------------------------------------------------------------
class CudaTimer:
    """k calls between CUDA events (one before, one after each call)."""

    def __init__(self, lib: str, module, call, k: int):
        self.call, self.k = call, k
        if lib == "torch":
            self.event = lambda: module.cuda.Event(enable_timing=True)
            self.elapsed = lambda a, b: a.elapsed_time(b)
            self.sync = module.cuda.synchronize
        else:  # cupy (the legacy default stream, as torch: unset CUPY_CUDA_PER_THREAD_DEFAULT_STREAM)
            self.event = module.cuda.Event
            self.elapsed = module.cuda.get_elapsed_time
            self.sync = module.cuda.Device().synchronize

    def run(self) -> Timing:
        events = [self.event() for _ in range(self.k + 1)]
        self.sync()
        start = time.perf_counter()
        events[0].record()
        for i in range(self.k):
            self.call()
            events[i + 1].record()
        events[-1].synchronize()
        wall = (time.perf_counter() - start) * 1e3
        runs = [float(self.elapsed(a, b)) for a, b in zip(events, events[1:])]
        return Timing(float(self.elapsed(events[0], events[-1])) / self.k, wall / self.k, runs)

    def release(self) -> None:
        pass


class HostTimer:
    def __init__(self, call, k: int = 1):
        self.call, self.k = call, k

    def run(self) -> Timing:
        runs = []
        for _ in range(self.k):
            start = time.perf_counter()
            self.call()
            runs.append((time.perf_counter() - start) * 1e3)
        return Timing(sum(runs) / self.k, sum(runs) / self.k, runs)

    def release(self) -> None:
        pass


# -- per call: what a user feels ----------------------------------------------------------------
def first_of(result):
    """The array whose first element a caller reads: a tuple's first array (wgprim's
    histogram returns (counts, numpy edges): its counts), else the result itself."""
    if isinstance(result, (tuple, list)):
        for item in result:
            if not isinstance(item, np.ndarray):
                return item
        return result[0]
    return result


def wgprim_first(result):
    """Wait for a wgprim result and read its first element: `.item()` of a 0-d result,
    else the first 4 bytes of its buffer (one element, or the start of one, whatever the
    dtype; an empty result's buffer still has 16 bytes)."""
    from wgprim import transfer
    from wgprim.program import flush_batch

    a = first_of(result)
    if a.ndim == 0:
        return a.item()
    flush_batch(a.device)  # nothing is queued outside wgprim.batch(); a no-op then
    return transfer.read(a.device, a.buffer, 0, 4)


def cuda_first(result, sync):
    """Wait for a CuPy or PyTorch result and read its first element to the host:
    `.item()` of a 0-d result or of the first element (an empty result: the sync)."""
    a = first_of(result)
    if a.ndim == 0:
        return a.item()
    flat = a.reshape(-1)
    if len(flat) == 0:
        return sync()
    return flat[0].item()


def cuda_sync(lib: str, module):
    """The device-wide synchronize of a CUDA library ("torch" or "cupy")."""
    if lib == "torch":
        return module.cuda.synchronize
    return module.cuda.Device().synchronize


@dataclass
class PerCall:
    """Host wall times of one-shot calls, in ms (None: not measured, `error` says why)."""

    call_ms: float | None  # median over rounds of (N calls back to back, then one sync) / N
    latency_ms: float | None  # median of (one call, then a read of its first element)
    calls: int  # N
    call_rounds_ms: list = field(default_factory=list)  # each round's per-call time
    latency_runs_ms: list = field(default_factory=list)
    warmup_ms: float | None = None  # per call, over the warm-up calls (first calls included)
    error: str | None = None  # what stopped the measurement of this side

    def as_dict(self) -> dict:
        lat = self.latency_runs_ms
        return {"call_ms": self.call_ms, "latency_ms": self.latency_ms, "calls": self.calls,
                "call_rounds_ms": self.call_rounds_ms, "latency_runs": len(lat),
                "latency_min_ms": min(lat) if lat else None, "warmup_ms": self.warmup_ms, "error": self.error}


class PerCallTimer:
    """What a user feels of one side: `sync(result)` waits for a result (wgprim: reads
    4 bytes of it; CUDA: the device's synchronize), `first(result)` reads its first
    element to the host. Results are dropped as soon as the next call is made, as a
    loop over one-shot calls drops them."""

    def __init__(self, call, sync, first, warmup: int = 3):
        self.call, self.sync, self.first = call, sync, first
        self.warmup = warmup
        self.one_ms: float | None = None
        self.rounds: list[float] = []
        self.latencies: list[float] = []
        self.n = 0
        self.error: str | None = None

    def warm(self) -> float:
        """A few calls, then the sync: kernels compiled, allocators filled; the wall time
        per call (what N and the number of latency runs are chosen from)."""
        start = time.perf_counter()
        result = None
        for _ in range(self.warmup):
            result = self.call()
        self.sync(result)
        del result
        self.one_ms = (time.perf_counter() - start) * 1e3 / self.warmup
        return self.one_ms

    def choose(self, calls: int = 100, budget_ms: float = 1000.0, least: int = 10) -> int:
        """N: `calls`, fewer where N calls would take more than `budget_ms` of wall time,
        never fewer than `least` (nor more than `calls`)."""
        one = self.one_ms if self.one_ms is not None else self.warm()
        self.n = int(min(calls, max(least, budget_ms // max(one, 1e-3))))
        return self.n

    def calls_round(self) -> float:
        """N calls back to back, results dropped, one sync: the wall time per call."""
        call, n = self.call, self.n or 1
        start = time.perf_counter()
        result = None
        for _ in range(n):
            result = call()
        self.sync(result)
        ms = (time.perf_counter() - start) * 1e3 / n
        del result
        self.rounds.append(ms)
        return ms

    def latency_run(self, kept: bool = True) -> float:
        """One call, then its first element on the host (`kept`: recorded; else a warm-up)."""
        start = time.perf_counter()
        self.first(self.call())
        ms = (time.perf_counter() - start) * 1e3
        if kept:
            self.latencies.append(ms)
        return ms

    def latency_block(self, runs: int) -> None:
        """One unrecorded run, then `runs` latency runs back to back: one side's turn."""
        self.latency_run(kept=False)
        for _ in range(runs):
            self.latency_run()

    def result(self) -> PerCall:
        return PerCall(float(np.median(self.rounds)) if self.rounds else None,
                       float(np.median(self.latencies)) if self.latencies else None,
                       self.n, [float(x) for x in self.rounds], [float(x) for x in self.latencies],
                       self.one_ms, self.error)


def wgprim_per_call(call, warmup: int = 3) -> PerCallTimer:
    return PerCallTimer(call, wgprim_first, wgprim_first, warmup)


def cuda_per_call(lib: str, module, call, warmup: int = 3) -> PerCallTimer:
    sync = cuda_sync(lib, module)
    return PerCallTimer(call, lambda _result: sync(), lambda result: cuda_first(result, sync), warmup)


LATENCY_BLOCKS = 4


def per_call(timers: dict, rounds: int = 3, calls: int = 100, budget_ms: float = 1000.0, least: int = 10,
             latency_runs: int = 20, least_latency_runs: int = 5) -> dict:
    """Time every side's one-shot calls, interleaved: each side warmed and its N chosen,
    then `rounds` rounds of every side's N calls, then the latency runs (as many as fit the
    budget, at least `least_latency_runs`, at most `latency_runs`) in LATENCY_BLOCKS turns
    of every side, each turn an unrecorded run and then its share back to back. Turns,
    not one run of each side at a time: wgprim (Vulkan) and the CUDA libraries are two
    contexts on one GPU, and alternating them call by call would time the GPU's switches
    between them, which no user's loop of one library pays. A side that raises stops
    there, the others go on: {name: PerCall}, with what it measured before and the error."""
    live = dict(timers)

    def each(step) -> None:
        for name, timer in list(live.items()):
            try:
                step(timer)
            except Exception as error:  # e.g. out of memory at this size: that side only
                timer.error = f"{type(error).__name__}: {error}"
                del live[name]

    each(lambda t: t.choose(calls, budget_ms, least))
    one_ms = max([t.one_ms for t in live.values()] + [1e-3])
    runs = int(min(latency_runs, max(least_latency_runs, budget_ms // one_ms)))
    for _ in range(rounds):
        each(lambda t: t.calls_round())
    blocks = min(LATENCY_BLOCKS, runs)
    for b in range(blocks):
        share = runs // blocks + (1 if b < runs % blocks else 0)
        each(lambda t: t.latency_block(share))
    return {name: timer.result() for name, timer in timers.items()}


# -- summaries ------------------------------------------------------------------------------------
def summary(rounds: list[Timing], k: int, mode: str) -> dict:
    """min / median / spread of the rounds' per-run times, and of the single runs."""
    ms = np.array([r.ms for r in rounds], np.float64)
    wall = np.array([r.wall_ms for r in rounds], np.float64)
    runs = np.array([x for r in rounds for x in r.per_run], np.float64)
    median = float(np.median(ms))
    return {
        "median_ms": median,
        "min_ms": float(ms.min()),
        "max_ms": float(ms.max()),
        "spread": float((ms.max() - ms.min()) / median) if median > 0 else None,
        "wall_ms": float(np.median(wall)),
        "run_min_ms": float(runs.min()) if runs.size else None,
        "run_median_ms": float(np.median(runs)) if runs.size else None,
        "rounds_ms": [float(x) for x in ms],
        "k": k,
        "rounds": len(rounds),
        "mode": mode,
    }
