"""Program: an ordered list of dispatch steps, run as one compute pass and one submit.

This is where wgprim's one rule lives. Workgroups of one dispatch cannot wait for each
other (WebGPU promises no forward progress between them), so the only global
synchronization point is the boundary between two dispatches: everything step N writes
is visible to step N+1. An algorithm that needs "all of phase A before any of phase B"
is therefore two steps of a Program, never a loop inside one kernel.

Also here: the pipeline cache (shader modules and pipelines are built once per
(kernel file, specialization, entry point, constants)), the temporary-buffer pool,
folding of large grids into two dimensions, GPU timestamps per step, and batching of
several primitive calls into one submit (`with wgprim.batch(): ...`).
"""
from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from wgprim.device import Device, check_current, get_device
from wgprim import transfer
from wgprim.errors import explain_gpu_error
from wgprim.unroll import unroll

KERNEL_DIR = Path(__file__).parent / "kernels"


@lru_cache(maxsize=None)
def kernel_source(name: str | tuple) -> str:
    """The text of `kernels/<name>.wgsl` (of several files joined, for a tuple of names)."""
    if isinstance(name, tuple):
        return "\n".join(kernel_source(n) for n in name)
    return (KERNEL_DIR / f"{name}.wgsl").read_text()


def module_source(kernel: str | tuple, preamble: str) -> str:
    """The WGSL text compiled for kernel file(s) `kernel` after `preamble`: the two joined,
    with the loops marked `// unroll` written out (unroll.py)."""
    return unroll(preamble + "\n" + kernel_source(kernel))


def get_pipeline(device: Device, kernel: str | tuple, preamble: str, entry: str, constants: dict | None = None):
    """A compute pipeline for `entry` of kernel file `kernel` (or of several files joined,
    e.g. a variant of a building block followed by the kernel that uses it), specialized
    by `preamble` (WGSL put before the files: type aliases and operator functions) and
    `constants` (pipeline-overridable constants). Cached per device."""
    constants = dict(sorted((constants or {}).items()))
    key = (kernel, preamble, entry, tuple(constants.items()))
    pipelines = device.cache("pipelines")
    if key in pipelines:
        return pipelines[key]
    modules = device.cache("modules")
    mkey = (kernel, preamble)
    try:
        if mkey not in modules:
            modules[mkey] = device.device.create_shader_module(
                label=str(kernel), code=module_source(kernel, preamble)
            )
        pipeline = device.device.create_compute_pipeline(
            label=f"{kernel}.{entry}",
            layout="auto",
            compute={"module": modules[mkey], "entry_point": entry, "constants": constants},
        )
    except Exception as error:
        raise explain_gpu_error(error, f"building kernel {kernel}.{entry}") from error
    pipelines[key] = pipeline
    return pipeline


# Building blocks kept per device for the calls that look them up (lookup()).
LOOKUP_SIZE = 512
_lookup_lock = threading.Lock()


def lookup(device: Device, key: tuple, make):
    """What `make()` builds for `key` on `device` (a recorder, a sorter: anything whose
    construction depends only on the key), built on the first call with that key and kept
    in a bounded LRU of LOOKUP_SIZE entries per device. Thread-safe: two threads asking for
    a new key at once may both build it; one result is kept. This is the lookup of a call's
    path: a repeated one-shot call finds what the first one built."""
    table = device.cache("lookup")
    with _lookup_lock:
        found = table.get(key)
        if found is not None:
            table[key] = table.pop(key)  # most recently used last
            return found
    made = make()
    with _lookup_lock:
        table.setdefault(key, made)
        while len(table) > LOOKUP_SIZE:
            del table[next(iter(table))]
        return table[key]


def consecutive_subgroups(device: Device) -> bool:
    """True when the adapter has subgroups made of consecutive invocations (what the
    subgroup scans need); probed once per device with kernels/subgroup_probe.wgsl."""
    cache = device.cache("probes")
    if "subgroups" not in cache:
        cache["subgroups"] = device.has_subgroups and _probe_subgroups(device)
    return device.has_subgroups and cache["subgroups"]


def _probe_subgroups(device: Device) -> bool:
    try:
        pipeline = get_pipeline(device, "subgroup_probe", "", "probe")
    except Exception:
        return False
    program = Program(device, "subgroup probe", transient=False)
    out = program.temp(1024)
    program.dispatch("probe", pipeline, {0: out}, 1)
    # Submitted alone: a probe first needed inside `with batch():` must read its own
    # result without submitting the user's queued work early.
    program.run(alone=True)
    consecutive = bool(np.all(program.read(out, 0, 1024, np.uint32, alone=True) == 1))
    program.release()
    return consecutive


class Recorder(Protocol):
    """A building block that other primitives compose: built once for its shape (pipelines
    from the cache), then `record(program, ...)` adds its steps to any Program (the
    caller's, so a whole primitive stays one submit). ops/scan.ScanRecorder,
    ops/reduce.ReduceRecorder, ops/radix_sort.RadixSorter, ops/select.CompactRecorder."""

    def record(self, program: "Program", *args, **kwargs) -> None: ...


def default_pool_bytes(device: Device) -> int:
    """How many bytes of free temporaries the shared pool keeps for reuse: as much as the
    device's largest buffer (enough for the temporaries of a large call to be reused by the
    next one), or WGPRIM_POOL_MB. Past it the least recently returned buffers are destroyed:
    one-shot calls on inputs of many lengths would otherwise keep every length's
    temporaries alive forever."""
    mib = os.environ.get("WGPRIM_POOL_MB")
    return int(float(mib) * 2**20) if mib else device.max_buffer_bytes


class BufferPool:
    """Temporary buffers reused across calls, keyed by (size, usage), at most `max_bytes`
    of free ones kept (least recently returned destroyed first; None: no bound, for a
    plan's own pool, which holds exactly what the plan needs). Thread-safe."""

    def __init__(self, device: Device, max_bytes: int | None = None):
        self.device = device
        self.max_bytes = max_bytes
        self.free: dict[tuple[int, int], list] = {}
        self._lru: OrderedDict[int, object] = OrderedDict()  # id(buffer) -> buffer, oldest first
        self.free_bytes = 0
        self._lock = threading.Lock()

    def take(self, size: int, usage) -> object:
        size = max(16, -(-size // 16) * 16)
        with self._lock:
            stack = self.free.get((size, int(usage)))
            if stack:
                buffer = stack.pop()
                del self._lru[id(buffer)]
                self.free_bytes -= buffer.size
                return buffer
        try:
            return self.device.device.create_buffer(size=size, usage=usage)
        except Exception as error:
            if self is not pool(self.device) and pool(self.device).free_bytes:
                pool(self.device).clear()  # free the shared cache and try once more
                return self.take(size, usage)
            if self.free_bytes:
                self.clear()
                return self.take(size, usage)
            raise explain_gpu_error(error, f"allocating a {size}-byte ({size / 2**20:.1f} MiB) temporary buffer") from error

    def give(self, buffer) -> None:
        with self._lock:
            self.free.setdefault((buffer.size, int(buffer.usage)), []).append(buffer)
            self._lru[id(buffer)] = buffer
            self.free_bytes += buffer.size
            self._trim(self.max_bytes)

    def clear(self) -> None:
        """Destroy every free buffer."""
        with self._lock:
            self._trim(0)

    def _trim(self, limit: int | None) -> None:
        while limit is not None and self.free_bytes > limit and self._lru:
            _, buffer = self._lru.popitem(last=False)
            self.free[(buffer.size, int(buffer.usage))].remove(buffer)
            self.free_bytes -= buffer.size
            # Work already submitted keeps it alive until done (wgpu defers destruction).
            buffer.destroy()


def pool(device: Device) -> BufferPool:
    """The device's shared pool of temporaries (for one-shot calls)."""
    cache = device.cache("pool")
    if "pool" not in cache:
        cache["pool"] = BufferPool(device, default_pool_bytes(device))
    return cache["pool"]


def view(buffer, offset: int = 0, size: int | None = None) -> dict:
    """A binding resource for `size` bytes of `buffer` from `offset`."""
    size = buffer.size - offset if size is None else size
    return {"buffer": buffer, "offset": int(offset), "size": int(size)}


def fold_grid(groups: int, max_per_dim: int) -> tuple[int, int]:
    """Spread `groups` workgroups over x and y when x alone would exceed the limit.

    Kernels compute their linear index as `wid.x + wid.y * nwg.x` and leave when it is
    `>= groups` (the folded grid may be slightly larger than asked).
    """
    if groups <= max_per_dim:
        return groups, 1
    y = -(-groups // max_per_dim)
    x = -(-groups // y)
    return x, y


@dataclass
class Step:
    label: str  # what profiling reports: the outermost scope's label, else the step's own
    pipeline: object
    bind_group: object
    grid: tuple[int, int]
    path: tuple[str, ...] = ()  # the scopes it was recorded in, outermost first, and its own label


@dataclass
class Copy:
    """A buffer-to-buffer copy between two compute passes (recorded by Program.copy)."""

    src: object
    src_offset: int
    dst: object
    dst_offset: int
    nbytes: int


@dataclass
class StepTime:
    label: str
    ms: float


@dataclass
class Program:
    """Dispatch steps recorded in order; `run()` submits them as one compute pass."""

    device: Device = field(default_factory=get_device)
    label: str = ""
    # True for one-shot calls: temporaries go back to the pool once submitted.
    # Plans pass False and keep their buffers for every run.
    transient: bool = True
    # Where temporaries come from: the device's shared pool unless a plan brings its own.
    pool: BufferPool | None = None
    steps: list = field(default_factory=list)  # Step and Copy, in order
    held: list = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)

    def __post_init__(self):
        check_current(self.device, "a program")
        if self.pool is None:
            self.pool = pool(self.device)

    # -- resources ---------------------------------------------------------------
    def temp(self, nbytes: int):
        """A storage buffer for intermediate results, alive as long as this Program needs it."""
        import wgpu

        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        return self._hold(nbytes, usage)

    def params(self, *values: int):
        """A uniform buffer holding `values` as u32 (kernel parameters for one step)."""
        import wgpu

        data = np.zeros(-(-max(len(values), 1) // 4) * 4, np.uint32)
        data[: len(values)] = np.asarray(values, dtype=np.int64).astype(np.uint32)
        buffer = self._hold(data.nbytes, wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
        self.write(buffer, data)
        return buffer

    def write(self, buffer, data, offset: int = 0) -> None:
        """Write host `data` (a numpy array or bytes) into `buffer` at `offset` now: before
        any step of this Program runs, and before the steps of programs still queued in a
        batch (queue writes precede later submits)."""
        try:
            transfer.write(self.device, buffer, int(offset), data)
        except Exception as error:
            raise explain_gpu_error(error, f"writing a buffer for {self.label or 'a program'}") from error

    def read(self, buffer, offset: int = 0, nbytes: int | None = None, dtype=np.uint8,
             alone: bool = False) -> np.ndarray:
        """`nbytes` of `buffer` from `offset` as a numpy array of `dtype`, once everything
        submitted before (queued batches included, unless `alone`) has run: a sync with
        the GPU."""
        nbytes = buffer.size - offset if nbytes is None else nbytes
        if not alone:
            flush_batch(self.device)
        try:
            raw = transfer.read(self.device, buffer, int(offset), int(nbytes))
        except Exception as error:
            raise explain_gpu_error(error, f"reading a buffer for {self.label or 'a program'}") from error
        return raw.view(dtype)

    def _hold(self, nbytes: int, usage):
        buffer = self.pool.take(nbytes, usage)
        self.held.append(buffer)
        return buffer

    def release(self) -> None:
        """Give the temporaries back to the pool (once the work using them is submitted)."""
        for buffer in self.held:
            self.pool.give(buffer)
        self.held.clear()

    def reset(self) -> None:
        """Forget every step and give the temporaries back (a plan re-recording its steps)."""
        self.steps.clear()
        self.release()

    # -- steps -------------------------------------------------------------------
    def dispatch(self, label: str, pipeline, bindings: dict, groups: int) -> None:
        """Add one step: `groups` workgroups of `pipeline` with `bindings` {binding: resource}."""
        if groups <= 0:
            return
        self._check_devices(label, bindings)
        entries = [
            {"binding": b, "resource": r if isinstance(r, dict) else view(r)}
            for b, r in sorted(bindings.items())
        ]
        try:
            bind_group = self.device.device.create_bind_group(
                layout=pipeline.get_bind_group_layout(0), entries=entries
            )
        except Exception as error:
            raise explain_gpu_error(error, f"binding resources for {label}") from error
        grid = fold_grid(groups, self.device.max_groups_per_dim)
        path = (*self.scopes, label)
        self.steps.append(Step(path[0], pipeline, bind_group, grid, path))

    def copy(self, src, src_offset: int, dst, dst_offset: int, nbytes: int) -> None:
        """Add a step copying `nbytes` of buffer `src` (from `src_offset`) into `dst` (at
        `dst_offset`), after the steps before it and before the steps after it. Offsets and
        size must be multiples of 4."""
        if nbytes > 0:
            self.steps.append(Copy(src, int(src_offset), dst, int(dst_offset), int(nbytes)))

    @contextlib.contextmanager
    def scope(self, label: str):
        """Name the steps recorded inside the block: profiling reports each of them under
        `label` (the outermost scope's, when scopes nest), e.g. a sort reports the steps
        of the scan it composes as "radix scan". Step.path keeps every name."""
        self.scopes.append(label)
        try:
            yield self
        finally:
            self.scopes.pop()

    def _check_devices(self, label: str, bindings: dict) -> None:
        """Every bound buffer must live on this Program's device (wgpu would fail with an
        obscure validation error): arrays from two devices in one call are refused."""
        for r in bindings.values():
            buffer = r["buffer"] if isinstance(r, dict) else r
            owner = getattr(buffer, "_device", None)
            if owner is not None and owner is not self.device.device:
                raise ValueError(
                    f"{label}: inputs live on two devices ({self.device.name} and "
                    f"{_name_of(owner)}): every Array of one call (and the plan running it) "
                    f"must come from the same device. Arrays and plans made before "
                    f"use_adapter() must be made again after it."
                )

    # -- running -----------------------------------------------------------------
    def encode(self, encoder, profiler: "Profiler | None" = None) -> None:
        if not self.steps:
            return
        if profiler is not None and not profiler.inside_passes:
            # One pass per step, each timed by its own begin/end timestamps. Passes add no
            # synchronization beyond the dispatch boundary that is already there.
            for step in self.steps:
                if isinstance(step, Copy):
                    self._copy(encoder, step)
                    continue
                cp = encoder.begin_compute_pass(timestamp_writes=profiler.pass_writes(step.label))
                self._record(cp, step)
                cp.end()
            return
        cp = None  # one pass for the dispatches between two copies
        for step in self.steps:
            if isinstance(step, Copy):
                if cp is not None:
                    self._end_pass(cp, profiler)
                    cp = None
                self._copy(encoder, step)
                continue
            if cp is None:
                cp = encoder.begin_compute_pass(label=self.label)
            if profiler is not None:
                profiler.mark(cp, step.label)
            self._record(cp, step)
        if cp is not None:
            self._end_pass(cp, profiler)

    @staticmethod
    def _end_pass(cp, profiler: "Profiler | None") -> None:
        if profiler is not None:
            profiler.mark(cp, None)
        cp.end()

    @staticmethod
    def _copy(encoder, step: Copy) -> None:
        encoder.copy_buffer_to_buffer(step.src, step.src_offset, step.dst, step.dst_offset, step.nbytes)

    @staticmethod
    def _record(cp, step: Step) -> None:
        cp.set_pipeline(step.pipeline)
        cp.set_bind_group(0, step.bind_group)
        cp.dispatch_workgroups(step.grid[0], step.grid[1], 1)

    def run(self, profile: bool = False, alone: bool = False) -> list[StepTime] | None:
        """Submit every step (or queue them in the active batch). With `profile`, wait for
        the GPU and return the time of each step from timestamp queries (None when the
        adapter has no timestamps). `alone`: submit now, neither queued in nor flushing
        the active batch (a probe needed in the middle of a batch, which depends on
        nothing queued there)."""
        sink = getattr(_profiling, "sink", None)
        profile = profile or sink is not None
        batch = active_batch(self.device)
        if batch is not None and not profile and not alone:
            batch.append(self)
            return None
        if not alone:
            flush_batch(self.device)
        profiler = Profiler(self.device, len(self.steps)) if profile and self.device.has_timestamps else None
        encoder = self.device.device.create_command_encoder()
        self.encode(encoder, profiler)
        if profiler is not None:
            profiler.resolve(encoder)
        try:
            self.device.device.queue.submit([encoder.finish()])
        except Exception as error:
            raise explain_gpu_error(error, f"running {self.label or 'a program'}") from error
        if self.transient:
            self.release()
        times = profiler.read() if profiler is not None else None
        if sink is not None and times is not None:
            sink.extend(times)
        return times


class Profiler:
    """GPU timestamps around each step: inside one pass when the adapter allows it,
    otherwise around one pass per step."""

    def __init__(self, device: Device, steps: int):
        import wgpu

        self.device = device
        self.inside_passes = "timestamp-query-inside-passes" in device.features
        self.count = steps + 1 if self.inside_passes else 2 * steps
        self.query = device.device.create_query_set(type=wgpu.QueryType.timestamp, count=max(self.count, 2))
        self.buffer = device.device.create_buffer(
            size=8 * max(self.count, 2), usage=wgpu.BufferUsage.QUERY_RESOLVE | wgpu.BufferUsage.COPY_SRC
        )
        self.labels: list[str] = []
        self.starts: list[int] = []  # inside passes: the timestamp that starts each label's span
        self.next = 0

    def mark(self, cp, label: str | None) -> None:
        from wgpu.backends.wgpu_native.extras import write_timestamp

        write_timestamp(cp, self.query, self.next)
        if label is not None:
            self.labels.append(label)
            self.starts.append(self.next)
        self.next += 1

    def pass_writes(self, label: str) -> dict:
        self.labels.append(label)
        writes = {
            "query_set": self.query,
            "beginning_of_pass_write_index": self.next,
            "end_of_pass_write_index": self.next + 1,
        }
        self.next += 2
        return writes

    def resolve(self, encoder) -> None:
        if self.next:
            encoder.resolve_query_set(self.query, 0, self.next, self.buffer, 0)

    def read(self) -> list[StepTime]:
        if not self.next:
            return []
        ticks = np.frombuffer(self.device.device.queue.read_buffer(self.buffer, 0, 8 * self.next), np.uint64)
        ticks = ticks.astype(np.float64)
        if self.inside_passes:
            # a span ends at the next timestamp: the next step's, or its pass's end
            spans = ticks[np.array(self.starts, np.int64) + 1] - ticks[self.starts]
        else:
            spans = ticks[1::2] - ticks[0::2]
        return [StepTime(label, max(span, 0.0) / 1e6) for label, span in zip(self.labels, spans)]


# -- profiling every program of a block ---------------------------------------------
_profiling = threading.local()


@contextlib.contextmanager
def profile():
    """Time every step of every Program run in the block with GPU timestamps:
    `with profile() as times: wgprim.sum(x)` leaves a list of StepTime in `times`
    (empty when the adapter has no timestamp queries). Each run waits for the GPU."""
    saved = getattr(_profiling, "sink", None)
    _profiling.sink = times = []
    try:
        yield times
    finally:
        _profiling.sink = saved


# -- batching -------------------------------------------------------------------------
_batches = threading.local()


def active_batch(device: Device):
    stack = getattr(_batches, "stack", None)
    return stack[-1] if stack else None


class _Batch(list):
    def __init__(self, device: Device):
        super().__init__()
        self.device = device

    def submit(self) -> None:
        if not self:
            return
        programs, self[:] = list(self), []
        encoder = self.device.device.create_command_encoder()
        for program in programs:
            program.encode(encoder)
        try:
            self.device.device.queue.submit([encoder.finish()])
        except Exception as error:
            raise explain_gpu_error(error, "running a batch") from error
        for program in programs:
            if program.transient:
                program.release()


def queued(program: Program) -> bool:
    """True while `program` waits in an active batch (nested ones included)."""
    return any(p is program for b in getattr(_batches, "stack", []) or [] for p in b)


def flush_batch(device: Device | None = None) -> None:
    """Submit the work queued in the active batch (before reading results back)."""
    for batch in getattr(_batches, "stack", []) or []:
        batch.submit()


@contextlib.contextmanager
def batch():
    """Queue every primitive call made inside the block into one submit.

    Results are available after the block (reading one inside the block submits what
    is queued so far).
    """
    stack = getattr(_batches, "stack", None)
    if stack is None:
        stack = _batches.stack = []
    b = _Batch(get_device())
    stack.append(b)
    try:
        yield b
    finally:
        stack.pop()
        if stack:  # nested: the outer batch submits it, after what it queued before
            stack[-1].extend(b)
            b.clear()
        else:
            b.submit()


def _name_of(gpu_device) -> str:
    from wgprim.device import device_of

    owner = device_of(gpu_device)
    return owner.name if owner is not None else "a device wgprim did not open"


class Plan:
    """Steps built once and run many times: the shape of CUB's temp storage and
    cuda.compute's make_* objects. Pipelines come from the cache; temporaries come from
    the plan's own pool, so re-recording for new input/output buffers (new bind groups)
    takes back the same buffers and allocates nothing.

    Threads: each thread that runs the plan gets its own recorded Program, temporaries and
    result Arrays (`results()`, made by `make_results` on the thread's first use), so one
    plan shared by many threads never mixes their runs: a plan's result is overwritten
    only by the same thread's next run."""

    def __init__(self, device: Device, label: str, record, make_results=None):
        self.device = device
        self.label = label
        self._record = record  # record(program, *arrays): adds the steps
        self._make_results = make_results
        self._local = threading.local()

    def _state(self) -> "_PlanState":
        state = getattr(self._local, "state", None)
        if state is None:
            program = Program(self.device, self.label, transient=False, pool=BufferPool(self.device))
            state = self._local.state = _PlanState(program)
        return state

    @property
    def program(self) -> Program:
        """The calling thread's recorded Program."""
        return self._state().program

    def results(self):
        """The calling thread's result Array(s) (overwritten by its next run)."""
        check_current(self.device, "this plan")
        state = self._state()
        if state.results is None:
            state.results = self._make_results()
        return state.results

    def run(self, *arrays, profile: bool = False, variant=None):
        """Run the calling thread's steps, recorded anew when the buffers of `arrays` or
        `variant` (anything else the recording depends on, e.g. the passes a probe chose)
        differ from the last recording's."""
        check_current(self.device, "this plan")
        state = self._state()
        key = (tuple(id(a.buffer) for a in arrays), variant)
        if key != state.key:
            if queued(state.program):
                flush_batch(self.device)  # the queued run needs the steps and parameters as they are
            state.program.reset()
            state.key = None
            self._record(state.program, *arrays)
            state.key, state.arrays = key, arrays  # keep the bound buffers alive
        return state.program.run(profile=profile)


@dataclass
class _PlanState:
    """One thread's recording of a Plan."""

    program: Program
    key: tuple | None = None
    arrays: tuple = ()
    results: object = None
