"""The measurement protocol of one row (a registry entry, a dtype, a size):

1. prepare: make the inputs, upload them to wgprim and to each reference library;
2. check: wgprim's result against numpy's (or CuPy's, above NUMPY_CHECK_MAX, where the
   two are the same by definition); a wrong result is reported and not timed;
3. warm: run the row's own timed rounds, discarded, until the GPU's clock is up (at
   least `warmup_ms`, and until three rounds in a row agree within 2%), right before
   timing, so no host work separates the warm-up from the measurement;
4. time: `rounds` rounds, each timing wgprim then every reference, k runs back to back
   (k chosen so that a round lasts about `round_ms`);
5. per call: what a user feels, on the host's clock, every side interleaved: the wall
   time per call of N one-shot calls back to back and one sync (`call_ms`), and of one
   call and a read of its first element (`latency_ms`);
6. summarize: median, min and spread of the rounds; flags for what makes a row doubtful.

numpy is timed after the GPU rounds (its seconds of host work would let the GPU idle).
"""
from __future__ import annotations

import sys
import time
import zlib
from dataclasses import asdict, dataclass, field

import numpy as np

from wgprim.bench import timing
from wgprim.registry import Primitive

END_TO_END_MAX = 1 << 20  # up to this size, also the time from Python to the result on the host
NUMPY_CHECK_MAX = 1 << 24  # above this, CuPy checks wgprim where it gives numpy's answer
NUMPY_TIME_MAX = 1 << 24  # above this, numpy is not timed (seconds per call)
SPREAD_FLAG = 0.05  # rounds differing by more than this (of the median) make a row doubtful
STEADY = 0.02  # warm-up ends when three rounds agree within this
MAX_K = 100


@dataclass
class Protocol:
    rounds: int = 5
    round_ms: float = 20.0  # GPU time of one round of one side, about
    warmup_ms: float = 300.0
    warmup_max_ms: float = 3000.0
    seed: int = 0
    per_call: bool = True  # also time one-shot calls (call_ms, latency_ms)
    calls: int = 100  # one-shot calls back to back per per-call round (N) ...
    calls_budget_ms: float = 1000.0  # ... fewer where N calls would take longer than this ...
    calls_min: int = 10  # ... never fewer than this
    call_rounds: int = 3  # per-call rounds (median)
    latency_runs: int = 20  # (one call, read its first element) samples (median); fewer past the budget


@dataclass
class Row:
    primitive: str
    n: int
    dtype: str
    ok: bool
    wgprim_ms: float | None  # median over rounds of the per-run GPU time
    shape: list = field(default_factory=list)
    end_to_end_ms: float | None = None
    refs: dict = field(default_factory=dict)  # reference name -> median ms (GPU time)
    wgprim: dict = field(default_factory=dict)  # timing.summary of wgprim
    ref_stats: dict = field(default_factory=dict)  # reference name -> timing.summary
    gbps: float | None = None
    copy_fraction: float | None = None  # achieved GB/s / copy GB/s
    steps: list = field(default_factory=list)  # (label, ms) of one call
    flags: list = field(default_factory=list)
    warmup_ms: float | None = None
    seconds: dict = field(default_factory=dict)  # host seconds spent: prepare, check, time, per_call
    note: str = ""
    # What a user feels (host wall time, ms): per call of N back-to-back one-shot calls and
    # one sync, and one call then a read of its first element. None: not measured.
    call_ms: float | None = None
    latency_ms: float | None = None
    ref_calls: dict = field(default_factory=dict)  # reference name -> {"call_ms": ..., "latency_ms": ...}
    call_stats: dict = field(default_factory=dict)  # side -> timing.PerCall.as_dict()
    absent: dict = field(default_factory=dict)  # side -> why a figure of it is missing

    def ratios(self) -> dict:
        """reference ms / wgprim ms (GPU time): above 1 means wgprim is faster."""
        if not self.wgprim_ms:
            return {}
        return {k: v / self.wgprim_ms for k, v in self.refs.items() if v}

    def call_ratios(self) -> dict:
        """reference call_ms / wgprim call_ms (host wall time per one-shot call)."""
        if not self.call_ms:
            return {}
        return {k: v["call_ms"] / self.call_ms for k, v in self.ref_calls.items() if v.get("call_ms")}

    def call_over_gpu(self) -> float | None:
        """wgprim's wall time per one-shot call over its GPU time: what the host adds."""
        return self.call_ms / self.wgprim_ms if self.call_ms and self.wgprim_ms else None

    def refs_json(self) -> dict:
        """`refs` as the JSON holds it: {name: {"ms", "call_ms", "latency_ms"}}."""
        names = list(self.refs) + [k for k in self.ref_calls if k not in self.refs]
        return {k: {"ms": self.refs.get(k), "call_ms": self.ref_calls.get(k, {}).get("call_ms"),
                    "latency_ms": self.ref_calls.get(k, {}).get("latency_ms")} for k in names}

    def leave_out(self, side: str, why: str) -> None:
        """A side (or one of its figures) is not measured: say why, in absent and the note."""
        self.absent[side] = why
        self.note += f"; {side}: {why}"


def available_references(wanted: list[str]) -> dict:
    refs = {}
    for name in wanted:
        if name == "numpy":
            refs["numpy"] = np
        elif name in ("cupy", "torch"):
            try:
                module = __import__(name)
                if name == "torch" and not module.cuda.is_available():
                    raise ImportError("no CUDA device")
                if name == "cupy":
                    module.cuda.runtime.getDeviceCount()
                refs[name] = module
            except Exception as error:  # not installed or no CUDA: say so, go on
                print(f"note: {name} unavailable ({type(error).__name__}: {error})", file=sys.stderr)
        else:
            raise ValueError(f"unknown reference {name!r} (numpy, cupy, torch)")
    return refs


def row_rng(seed: int, name: str, dtype: str, n: int):
    """The same inputs for a row whatever ran before it (a repeated row is the same job)."""
    return np.random.default_rng([seed, zlib.crc32(f"{name}/{dtype}/{n}".encode())])


_inputs: dict = {}  # the last inputs made, by (generator, dtype, n, seed): rows that share them skip making them


def inputs_for(p: Primitive, dtype: str, n: int, seed: int) -> tuple:
    """The row's numpy inputs. Rows whose entries use the same generator (sum, cumsum and
    histogram of float32, say) get the same arrays, made once: generating 2^28 normal
    floats takes seconds. Nothing reads them but references, which do not write."""
    key = (p.make, dtype, n, seed)
    if key not in _inputs:
        _inputs.clear()
        _inputs[key] = p.make(row_rng(seed, getattr(p.make, "__name__", p.name), dtype, n), n, np.dtype(dtype))
    return _inputs[key]


def host(result):
    if isinstance(result, tuple):
        return tuple(host(r) for r in result)
    if hasattr(result, "numpy"):
        return result.numpy()
    if hasattr(result, "get"):  # CuPy
        return result.get()
    if hasattr(result, "cpu"):  # torch
        return result.cpu().numpy()
    return np.asarray(result)


def upload(lib: str, module, p: Primitive, inputs: tuple) -> tuple:
    if p.ref_inputs is not None:
        return p.ref_inputs(lib, module, *inputs)
    if lib == "cupy":
        return tuple(module.asarray(a) for a in inputs)
    # torch has little uint32 / uint64 support: the same bits as int32 / int64 (same width,
    # same work).
    signed = {np.dtype(np.uint32): np.int32, np.dtype(np.uint64): np.int64}
    return tuple(module.from_numpy(np.ascontiguousarray(a.view(signed.get(a.dtype, a.dtype)))).cuda()
                 for a in inputs)


def choose_k(one_ms: float, protocol: Protocol, cap: int = MAX_K) -> int:
    """Runs per round: enough for about protocol.round_ms of GPU work."""
    return int(min(max(1, round(protocol.round_ms / max(one_ms, 1e-3))), cap))


def _free_reference_memory(refs: dict) -> None:
    if "cupy" in refs:
        refs["cupy"].get_default_memory_pool().free_all_blocks()
    if "torch" in refs:
        refs["torch"].cuda.empty_cache()


def measure(p: Primitive, n: int, dtype: str, refs: dict, protocol: Protocol, copy_gbps: float | None) -> Row:
    import wgprim

    dev = wgprim.get_device()
    clock = [time.perf_counter()]

    def lap() -> float:
        clock.append(time.perf_counter())
        return round(clock[-1] - clock[-2], 3)

    # 1. prepare
    inputs = inputs_for(p, dtype, n, protocol.seed)
    gpu_inputs = tuple(wgprim.asarray(a) for a in inputs)
    call = lambda: p.call(wgprim, *gpu_inputs)  # noqa: E731
    same = p.same or (lambda g, r, *a: _exact(g, r))
    row = Row(p.name, int(inputs[0].size), dtype, False, None, shape=list(inputs[0].shape))
    lib_inputs = {}
    for lib in ("cupy", "torch"):
        if lib not in refs:
            continue
        if getattr(p, lib) is None:
            row.absent[lib] = f"no {lib} function for {p.name}"
            continue
        try:
            lib_inputs[lib] = upload(lib, refs[lib], p, inputs)
        except Exception as error:  # e.g. out of memory at this size: that side only
            row.absent[lib] = f"upload failed ({type(error).__name__}: {error})"
    row.seconds["prepare"] = lap()
    # 2. check
    got = host(call())
    oracle = "numpy"
    if n > NUMPY_CHECK_MAX and "cupy" in lib_inputs and p.checked_by_cupy():
        expected, oracle = host(p.cupy(refs["cupy"], *lib_inputs["cupy"])), "cupy"
    else:
        expected = p.numpy(*inputs)
    row.ok = bool(same(got, expected, *inputs))
    row.note = f"checked against {oracle}"
    for side, why in list(row.absent.items()):
        row.leave_out(side, why)
    row.seconds["check"] = lap()
    if not row.ok:
        return row
    # The timed form: captured programs k times in one submit when a call records all
    # its dispatches without running any; otherwise k separate calls.
    programs, captured = timing.capture(call)
    if programs and timing.labels_of(programs) == timing.profiled_labels(call):
        probe = timing.SubmitTimer(dev, programs, 2)
        first = probe.run()
        rerun_ok = same(host(captured), expected, *inputs)  # run twice over, still the answer
        probe.release(programs=not rerun_ok)
        if rerun_ok:
            wgprim_timer, mode = timing.SubmitTimer(dev, programs, choose_k(first.ms, protocol)), "submit"
        else:
            row.flags.append("wgprim: captured programs re-run differ; timed as calls")
            wgprim_timer = None
    else:
        wgprim_timer = None
        for program in programs or []:
            program.release()
    if wgprim_timer is None:
        first = timing.CallTimer(dev, call, 1).run()
        wgprim_timer, mode = timing.CallTimer(dev, call, choose_k(first.ms, protocol, cap=20)), "calls"
    timers = {"wgprim": (wgprim_timer, mode)}
    jobs = {"wgprim": call}
    for lib, lib_in in lib_inputs.items():
        fn = getattr(p, lib)
        job = lambda fn=fn, lib=lib, lib_in=lib_in: fn(refs[lib], *lib_in)  # noqa: E731
        try:
            one = timing.CudaTimer(lib, refs[lib], job, 1)
            one.run()  # first call: kernels load, allocator fills
            timers[lib] = (timing.CudaTimer(lib, refs[lib], job, choose_k(one.run().ms, protocol)), "events")
            jobs[lib] = job
        except Exception as error:  # e.g. out of memory at this size: that side only
            row.leave_out(lib, f"failed ({type(error).__name__}: {error})")
            _free_reference_memory(refs)
    try:
        # 3. warm, 4. time: round by round, every side
        row.warmup_ms = warm(timers, protocol)
        rounds = {name: [] for name in timers}
        for _ in range(protocol.rounds):
            for name, (timer, _mode) in timers.items():
                rounds[name].append(timer.run())
    finally:
        for timer, _mode in timers.values():
            timer.release()
    # 5. per call, while the GPU is still warm
    if protocol.per_call:
        measure_per_call(row, jobs, refs, protocol)
    # 6. summarize
    for name, (timer, how) in timers.items():
        stats = timing.summary(rounds[name], timer.k, how)
        if name == "wgprim":
            row.wgprim, row.wgprim_ms = stats, stats["median_ms"]
        else:
            row.ref_stats[name], row.refs[name] = stats, stats["median_ms"]
        row.flags += flags_of(name, stats)
    if "numpy" in refs and n <= NUMPY_TIME_MAX:
        numpy_rounds = [timing.HostTimer(lambda: p.numpy(*inputs)).run() for _ in range(min(3, protocol.rounds))]
        row.ref_stats["numpy"] = timing.summary(numpy_rounds, 1, "host")
        row.refs["numpy"] = row.ref_stats["numpy"]["median_ms"]
    row.steps = timing.steps_ms(dev, call)
    if n <= END_TO_END_MAX:
        row.end_to_end_ms = float(np.median([timing.end_to_end_ms(call, host) for _ in range(protocol.rounds)]))
        if row.wgprim_ms > row.end_to_end_ms:
            row.flags.append("wgprim: GPU time > end-to-end time")
    itemsize = np.dtype(dtype).itemsize
    if row.wgprim_ms:
        row.gbps = p.bytes(row.n, itemsize) / (row.wgprim_ms * 1e6)
        row.copy_fraction = row.gbps / copy_gbps if copy_gbps else None
    del lib_inputs, jobs
    _free_reference_memory(refs)
    row.seconds["time"] = lap()  # the per-call part (seconds["per_call"]) included
    return row


def measure_per_call(row: Row, jobs: dict, refs: dict, protocol: Protocol) -> None:
    """call_ms and latency_ms of every side of the row (jobs: side -> one-shot call on
    GPU-resident inputs), interleaved; a side that fails is left out with the reason."""
    start = time.perf_counter()
    timers = {}
    for side, job in jobs.items():
        timers[side] = (timing.wgprim_per_call(job) if side == "wgprim"
                        else timing.cuda_per_call(side, refs[side], job))
    results = timing.per_call(timers, rounds=protocol.call_rounds, calls=protocol.calls,
                              budget_ms=protocol.calls_budget_ms, least=protocol.calls_min,
                              latency_runs=protocol.latency_runs)
    for side, result in results.items():
        if result.error:
            row.leave_out(f"{side} per call", f"failed ({result.error})")
            row.flags.append(f"{side}: per-call timing failed")
        row.call_stats[side] = result.as_dict()
        if side == "wgprim":
            row.call_ms, row.latency_ms = result.call_ms, result.latency_ms
        else:
            row.ref_calls[side] = {"call_ms": result.call_ms, "latency_ms": result.latency_ms}
    row.seconds["per_call"] = round(time.perf_counter() - start, 3)


def flags_of(name: str, stats: dict) -> list[str]:
    """What makes a side's figure doubtful: a GPU time above the wall time of the same
    runs (the clock is misread), or rounds that disagree."""
    flags = []
    if stats["median_ms"] > 1.01 * stats["wall_ms"] + 0.002:
        flags.append(f"{name}: GPU time > wall time")
    if stats["spread"] is not None and stats["spread"] > SPREAD_FLAG:
        flags.append(f"{name}: spread {100 * stats['spread']:.0f}%")
    return flags


def warm(timers: dict, protocol: Protocol, steady_on: str = "wgprim") -> float:
    """Run the row's rounds (discarded) until the GPU is warm; the milliseconds it took."""
    start = time.perf_counter()
    recent: list[float] = []
    while True:
        for name, (timer, _mode) in timers.items():
            result = timer.run()
            if name == steady_on:
                recent = (recent + [result.ms])[-3:]
        elapsed = (time.perf_counter() - start) * 1e3
        steady = len(recent) == 3 and max(recent) <= (1 + STEADY) * min(recent)
        if elapsed >= protocol.warmup_max_ms or (elapsed >= protocol.warmup_ms and steady):
            return elapsed


def copy_bandwidth(nbytes: int, protocol: Protocol) -> float:
    """GB/s (bytes read + written) of a plain vec4 copy kernel on wgprim's device, over
    nbytes in binding-sized chunks (one dispatch each)."""
    import wgprim
    from wgprim.ops.common import chunks
    from wgprim.pipelines import get_pipeline
    from wgprim.program import Program

    dev = wgprim.get_device()
    tile = 256 * 4 * 4  # u32s per workgroup: 256 invocations x 4 vec4s
    n = max(tile, nbytes // 4 // tile * tile)
    src, dst = wgprim.empty((n,), np.uint32), wgprim.empty((n,), np.uint32)
    pipe = get_pipeline(dev, "copy", "", "copy", {"WG": 256})
    program = Program(dev, "copy", transient=False)
    for c in chunks(n, 4, tile, dev):
        groups = c.count // tile
        program.dispatch("copy", pipe, {0: program.params(c.count // 4, groups), 1: c.view(src), 2: c.view(dst)}, groups)
    one = timing.SubmitTimer(dev, [program], 1)
    k = choose_k(one.run().ms, protocol)
    one.release(programs=False)
    timer = timing.SubmitTimer(dev, [program], k)
    warm({"copy": (timer, "submit")}, protocol, steady_on="copy")
    runs = [timer.run() for _ in range(protocol.rounds)]
    timer.release()
    ms = float(np.median([r.ms for r in runs]))
    return 2 * n * 4 / (ms * 1e6) if ms > 0 else float("nan")


def _exact(got, ref) -> bool:
    from wgprim.registry import exact

    return exact(got, ref)


def as_dict(row: Row) -> dict:
    """The row as the JSON holds it (docs/bench.md): `refs` is {name: {"ms": GPU median,
    "call_ms", "latency_ms"}} (schema 2 held {name: GPU median}; bench.results reads both)."""
    d = asdict(row)
    del d["ref_calls"]
    d["refs"] = row.refs_json()
    d["ratios"] = row.ratios()
    d["call_ratios"] = row.call_ratios()
    d["call_over_gpu"] = row.call_over_gpu()
    return d
