"""Program: an ordered list of dispatch steps, run as one compute pass and one submit.

This is where wgprim's one rule lives. Workgroups of one dispatch cannot wait for each
other (WebGPU promises no forward progress between them), so the only global
synchronization point is the boundary between two dispatches: everything step N writes
is visible to step N+1. An algorithm that needs "all of phase A before any of phase B"
is therefore two steps of a Program, never a loop inside one kernel.

Also here: submitting (`submit`), batching several primitive calls into one submit
(`with wgprim.batch(): ...`; the registry of open batches is batching.py) and folding
large grids into two dimensions. What a repeated call finds instead of making it again is
in caches.py (building blocks, parameters, bind groups), pipelines.py (shader modules and
pipelines) and recordings.py (kept recordings); buffers come from the memory pool
(memory.py); timestamps per step from profiling.py; plans are plans.py.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from wgprim import batching, native, transfer
from wgprim.batching import active_batch, check_not_pending, take_queued
from wgprim.caches import bind_group, params_buffer
from wgprim.device import Device, check_current, device_of, get_device
from wgprim.errors import explain_gpu_error
from wgprim.memory import Block, MemoryPool, buffer_size_for, check_alive, pool_of
from wgprim.pipelines import writable_bindings
from wgprim.profiling import Profiler, profiling_sink


def pool(device: Device) -> MemoryPool:
    """The device's memory pool (wgprim/memory.py): results and temporaries alike."""
    return pool_of(device)


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
    buffers: tuple = ()  # the buffers it binds (pinned while it waits in a batch)


@dataclass
class Copy:
    """A buffer-to-buffer copy between two compute passes (recorded by Program.copy)."""

    src: object
    src_offset: int
    dst: object
    dst_offset: int
    nbytes: int

    @property
    def buffers(self) -> tuple:
        return (self.src, self.dst)


@dataclass
class Clear:
    """Zeroes `nbytes` of `buffer` from `offset`, between two compute passes (Program.clear)."""

    buffer: object
    offset: int
    nbytes: int

    @property
    def buffers(self) -> tuple:
        return (self.buffer,)


def _usage_storage():
    import wgpu

    return wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST


def _usage_copy_dst():
    import wgpu

    return wgpu.BufferUsage.COPY_DST


def _usage_staging():
    import wgpu

    return wgpu.BufferUsage.MAP_READ | wgpu.BufferUsage.COPY_DST


@dataclass
class Program:
    """Dispatch steps recorded in order; `run()` submits them as one command buffer."""

    device: Device = field(default_factory=get_device)
    label: str = ""
    # True for one-shot calls: temporaries go back to the pool once submitted.
    # Plans pass False and keep their buffers for every run.
    transient: bool = True
    steps: list = field(default_factory=list)  # Step, Copy and Clear, in order
    held: list = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)
    # Buffers the steps use, pinned in the memory pool until released: an Array that the
    # caller drops between recording and running (an uploaded table, say) must not hand its
    # buffer to another allocation before this work has run (for a kept recording: while it
    # is kept). A Program pins as it records, except `externals` (ids of the buffers of the
    # call's own inputs and results, which their Arrays hold); any Program pins everything
    # while it waits in a batch.
    pinned: list = field(default_factory=list)
    externals: frozenset = frozenset()
    waiting: int = 0  # times queued in a batch and not yet submitted
    running: int = 0  # kept recordings: calls between finding it and submitting it (recordings.py)
    evicted: bool = False  # dropped from the kept recordings: release once no batch or call holds it
    # Exact-size buffers (a caller's, of a size not a multiple of 16): id -> (buffer, its
    # padded copy), every step using the copy; the copies written, to copy back at run().
    padded: dict = field(default_factory=dict)
    copy_back: list = field(default_factory=list)
    written: set = field(default_factory=set)  # ids of the buffers the steps may write

    def __post_init__(self):
        check_current(self.device, "a program")
        self.pool = pool(self.device)

    def __del__(self):
        # Noted, no lock taken (a finalizer may run inside the pool's critical sections).
        if self.pinned:  # recorded, never submitted (an error while recording)
            self.pool.unpins.append(self.pinned)
        if self.held:  # a plan's program, collected with its plan: the temporaries go back
            self.pool.returned.extend(self.held)

    def _uses(self, *buffers) -> None:
        if self.externals:
            buffers = [b for b in buffers if id(b) not in self.externals]
        self.pool.pin(buffers)
        self.pinned.extend(buffers)

    def unpin(self) -> None:
        pinned, self.pinned = self.pinned, []
        self.pool.unpin(pinned)

    # -- resources ---------------------------------------------------------------
    def temp(self, nbytes: int):
        """A storage buffer for intermediate results, alive as long as this Program needs it
        (its contents are whatever the pool's last user left: zero it with clear())."""
        buffer = self.pool.take(nbytes, _usage_storage())
        self.held.append(buffer)
        return buffer

    def params(self, *values: int):
        """A uniform buffer holding `values` as u32 (kernel parameters for one step): the
        device's kept buffer for these values (params_buffer)."""
        return params_buffer(self.device, tuple(int(v) & 0xFFFFFFFF for v in values))

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

    def release(self) -> None:
        """Unpin the buffers and give the temporaries back to the pool (once the work using
        them is submitted, or will never be)."""
        if self.pinned:
            self.unpin()
        for buffer in reversed(self.held):  # the next call's first temp() gets this one's first again
            self.pool.give_back(buffer)
        self.held.clear()

    def reset(self) -> None:
        """Forget every step and give the temporaries back (a plan re-recording its steps)."""
        self.steps.clear()
        self.padded.clear()
        self.copy_back.clear()
        self.written.clear()
        self.release()

    # -- exact-size buffers ---------------------------------------------------------
    # Kernels read whole vec4s, so every buffer wgprim makes is a multiple of 16 bytes. A
    # caller's buffer (Array.from_buffer) may be exactly its data's size, e.g. 12 bytes for
    # 3 floats, whose last vec4 no binding can address. Such a buffer is replaced, in every
    # step of the Program, by a padded temporary: copied in before its first use, copied
    # back at the end where a step writes it (an `out=`). The temporary is the Program's, so
    # a kept recording repeats the copies and makes nothing new.
    def _bound(self, buffer, offset: int, size: int, writes: bool):
        """(buffer, size) to use for `size` bytes of `buffer` from `offset`."""
        if not buffer.size % 16:
            if writes:
                self.written.add(id(buffer))
            return buffer, size
        found = self.padded.get(id(buffer))
        if found is None:
            copy = self.temp(buffer_size_for(buffer.size))
            self._uses(buffer, copy)
            self.steps.append(Copy(buffer, 0, copy, 0, buffer.size))
            found = self.padded[id(buffer)] = (buffer, copy)
        padded = found[1]
        if writes and found not in self.copy_back:
            if not int(buffer.usage) & int(_usage_copy_dst()):
                raise ValueError(f"a result buffer of {buffer.size} bytes (not a multiple of 16) is written through "
                                 "a padded copy and copied back, which needs COPY_DST in its usage: create it with "
                                 "usage=STORAGE | COPY_SRC | COPY_DST (or with a size rounded up to 16 bytes)")
            self.copy_back.append(found)
        if writes:
            self.written.add(id(padded))
        if offset + size > buffer.size - buffer.size % 16:  # reaches the partial last vec4: the whole of it
            size = -(-(offset + size) // 16) * 16 - offset
        return padded, size

    def _finish_copies(self) -> None:
        """Add the copies back of the padded buffers written since the last run."""
        for buffer, padded in self.copy_back:
            self._uses(buffer, padded)
            self.steps.append(Copy(padded, 0, buffer, 0, buffer.size))
            self.written.add(id(buffer))
        self.copy_back.clear()

    # -- steps -------------------------------------------------------------------
    def dispatch(self, label: str, pipeline, bindings: dict, groups: int) -> None:
        """Add one step: `groups` workgroups of `pipeline` with `bindings` {binding: resource}
        (a buffer, or a dict of buffer, offset and size)."""
        if groups <= 0:
            return
        entries = []
        for b, r in sorted(bindings.items()):
            if isinstance(r, dict):
                buffer = r["buffer"]
                offset = int(r.get("offset", 0))
                size = int(r["size"]) if r.get("size") is not None else buffer.size - offset
            else:
                buffer, offset, size = r, 0, r.size
            entries.append((b, buffer, offset, size))
        self._check_devices(label, entries)
        check_alive(e[1] for e in entries)
        writable = writable_bindings(self.device, pipeline)
        for i, (b, buffer, offset, size) in enumerate(entries):
            buffer, size = self._bound(buffer, offset, size, writable is None or b in writable)
            entries[i] = (b, buffer, offset, size)
        try:
            group = bind_group(self.device, pipeline, tuple(entries))
        except Exception as error:
            raise explain_gpu_error(error, f"binding resources for {label}") from error
        grid = fold_grid(groups, self.device.max_groups_per_dim)
        path = (*self.scopes, label)
        step = Step(path[0], pipeline, group, grid, path, tuple(e[1] for e in entries))
        self._uses(*step.buffers)
        self.steps.append(step)

    def copy(self, src, src_offset: int, dst, dst_offset: int, nbytes: int) -> None:
        """Add a step copying `nbytes` of buffer `src` (from `src_offset`) into `dst` (at
        `dst_offset`), after the steps before it and before the steps after it. Offsets and
        size must be multiples of 4."""
        if nbytes > 0:
            src, _ = self._bound(src, int(src_offset), int(nbytes), False)
            dst, _ = self._bound(dst, int(dst_offset), int(nbytes), True)
            self._uses(src, dst)
            self.steps.append(Copy(src, int(src_offset), dst, int(dst_offset), int(nbytes)))

    def clear(self, buffer, offset: int = 0, nbytes: int | None = None) -> None:
        """Add a step zeroing `nbytes` of `buffer` from `offset` (default: the rest of it),
        e.g. counters that the next steps add into. Multiples of 4."""
        nbytes = buffer.size - offset if nbytes is None else nbytes
        if nbytes > 0:
            buffer, _ = self._bound(buffer, int(offset), int(nbytes), True)
            self._uses(buffer)
            self.steps.append(Clear(buffer, int(offset), int(nbytes)))

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

    def _check_devices(self, label: str, entries: list) -> None:
        """Every bound buffer must live on this Program's device (wgpu would fail with an
        obscure validation error): arrays from two devices in one call are refused."""
        mine = self.device.device
        for _, buffer, _, _ in entries:
            owner = getattr(buffer, "_device", None)
            if owner is not None and owner is not mine:
                raise ValueError(
                    f"{label}: inputs live on two devices ({self.device.name} and "
                    f"{_name_of(owner)}): every Array of one call (and the plan running it) "
                    f"must come from the same device. Arrays and plans made before "
                    f"use_adapter() must be made again after it."
                )

    # -- running -----------------------------------------------------------------
    def encode(self, encoder, profiler: "Profiler | None" = None) -> None:
        """Record the steps into a wgpu command encoder through wgpu-py's objects (profiling
        and the benchmark's timer, which put timestamps between them)."""
        if not self.steps:
            return
        if profiler is not None and not profiler.inside_passes:
            # One pass per step, each timed by its own begin/end timestamps. Passes add no
            # synchronization beyond the dispatch boundary that is already there.
            for step in self.steps:
                if isinstance(step, Step):
                    cp = encoder.begin_compute_pass(timestamp_writes=profiler.pass_writes(step.label))
                    self._record(cp, step)
                    cp.end()
                else:
                    self._transfer(encoder, step)
            return
        cp = None  # one pass for the dispatches between two copies
        for step in self.steps:
            if not isinstance(step, Step):
                if cp is not None:
                    self._end_pass(cp, profiler)
                    cp = None
                self._transfer(encoder, step)
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
    def _transfer(encoder, step) -> None:
        if isinstance(step, Copy):
            encoder.copy_buffer_to_buffer(step.src, step.src_offset, step.dst, step.dst_offset, step.nbytes)
        else:
            encoder.clear_buffer(step.buffer, step.offset, step.nbytes)

    @staticmethod
    def _record(cp, step: Step) -> None:
        cp.set_pipeline(step.pipeline)
        cp.set_bind_group(0, step.bind_group)
        cp.dispatch_workgroups(step.grid[0], step.grid[1], 1)

    def buffers(self) -> list:
        """Every buffer the steps bind, copy or clear."""
        return [b for step in self.steps for b in step.buffers]

    def run(self, profile: bool = False, alone: bool = False, reads: list | None = None, stage=None):
        """Submit every step (or queue them in the active batch). With `profile`, wait for
        the GPU and return the time of each step from timestamp queries (None when the
        adapter has no timestamps). `alone`: submit now, neither queued in nor flushing
        the active batch (a probe needed in the middle of a batch, which depends on
        nothing queued there). `reads`: (buffer, offset, nbytes) to read back once the
        steps have run, copied out in the same submit (one sync, no second submit); the
        bytes are returned, a uint8 array each (queued work in a batch is submitted first).
        `stage`: a small result Array (a reduction's 0-d one) whose bytes the same submit
        also copies into a MAP_READ buffer kept with it, so that its `.item()` is one map
        and no second submit (skipped in a batch and when profiling)."""
        if self.copy_back:
            self._finish_copies()
        if batching.any_open():  # another thread's queued work may write what this one reads
            check_not_pending(self.device, (b for step in self.steps for b in step.buffers),
                              f"an Array that {self.label or 'a call'} uses")
        sink = profiling_sink()
        profile = profile or sink is not None
        batch = active_batch(self.device)
        if batch is not None and not profile and not alone and reads is None:
            batch.queue(self)
            return None
        if stage is not None and not profile and not reads and stage.block is not None:
            self._run_staged(stage, alone)
            return None
        if profile:  # timed step by step; the reads, if any, after the steps
            times = self._run_profiled(sink, alone)
            if not reads:
                return times
            return [transfer.read(self.device, b, int(o), int(n)) for b, o, n in reads]
        steps = self.steps
        staging = []
        if reads:
            steps = list(steps)
            for buffer, offset, nbytes in reads:
                size = -(-int(nbytes) // 4) * 4
                stage = self.pool.take(size, _usage_staging())
                staging.append((stage, int(nbytes)))
                steps.append(Copy(buffer, int(offset), stage, 0, size))
        pending = [] if alone else take_queued()
        try:
            submit(self.device, [*pending, self], steps)
        finally:
            for program in pending:
                program.after_submit(queued=True)
            self.after_submit()
        if not reads:
            return None
        try:
            return [np.frombuffer(native.map_read(stage, nbytes), np.uint8) for stage, nbytes in staging]
        finally:
            for stage, _ in staging:
                self.pool.give_back(stage)

    def _run_staged(self, result, alone: bool) -> None:
        nbytes = -(-max(result.nbytes, 4) // 4) * 4
        stage = Block(self.pool.take(nbytes, _usage_staging()), self.pool)
        result.block.staged = None  # until this submit has made the new bytes
        pending = [] if alone else take_queued()
        try:
            submit(self.device, [*pending, self], self.steps + [Copy(result.buffer, 0, stage.buffer, 0, nbytes)])
        finally:
            for program in pending:
                program.after_submit(queued=True)
            self.after_submit()
        result.block.staged = stage

    def _run_profiled(self, sink, alone: bool):
        if not alone:
            flush_batch(self.device)
        profiler = Profiler(self.device, len(self.steps)) if self.device.has_timestamps else None
        check_alive(self.buffers())
        encoder = self.device.device.create_command_encoder()
        self.encode(encoder, profiler)
        if profiler is not None:
            profiler.resolve(encoder)
        try:
            self.device.device.queue.submit([encoder.finish()])
        except Exception as error:
            raise explain_gpu_error(error, f"running {self.label or 'a program'}") from error
        self.after_submit()
        times = profiler.read() if profiler is not None else None
        if sink is not None and times is not None:
            sink.extend(times)
        return times

    def after_submit(self, queued: bool = False) -> None:
        """The steps were submitted (`queued`: from a batch): a one-shot program unpins its
        buffers and gives back its temporaries; a kept one only what its wait in a batch
        pinned."""
        if queued and not self.transient:
            self.waiting -= 1
            self.pool.unpin(self.buffers())
            if self.evicted and not self.waiting and not self.running:
                self.release()
        elif self.transient:
            self.release()


def submit(device: Device, programs: list, last_steps: list | None = None) -> None:
    """Encode the steps of `programs` in order into one command buffer and submit it (the
    last program's steps replaced by `last_steps` when given: a run with its read copies)."""
    steps = [s for p in programs[:-1] for s in p.steps] + (programs[-1].steps if last_steps is None else last_steps)
    if not steps:
        return
    label = programs[-1].label or "a program"
    check_alive(b for step in steps for b in step.buffers)  # a destroyed one would abort the process
    try:
        native.submit_steps(device, steps, Copy, Clear)
    except Exception as error:
        raise explain_gpu_error(error, f"running {label}") from error


def flush_batch(device: Device | None = None) -> None:
    """Submit the work queued in this thread's batches (before reading results back)."""
    programs = take_queued()
    if not programs:
        return
    try:
        submit(programs[0].device, programs)
    finally:
        for program in programs:
            program.after_submit(queued=True)


@contextlib.contextmanager
def batch():
    """Queue every primitive call made inside the block into one submit.

    Results are available after the block (reading one inside the block submits what
    is queued so far). Other threads cannot read them before the block ends (nothing is
    submitted yet): they get a WgprimError naming this thread (check_not_pending), and
    use_adapter()/use_device() are refused while the block is open.
    """
    b = batching.Batch(get_device())
    batching.push(b)
    try:
        yield b
    finally:
        if batching.pop():
            try:
                programs = b.take()
                if programs:
                    try:
                        submit(b.device, programs)
                    finally:
                        for program in programs:
                            program.after_submit(queued=True)
            finally:
                batching.closed()


def _name_of(gpu_device) -> str:
    owner = device_of(gpu_device)
    return owner.name if owner is not None else "a device wgprim did not open"
