"""Program: an ordered list of dispatch steps, run as one compute pass and one submit.

This is where wgprim's one rule lives. Workgroups of one dispatch cannot wait for each
other (WebGPU promises no forward progress between them), so the only global
synchronization point is the boundary between two dispatches: everything step N writes
is visible to step N+1. An algorithm that needs "all of phase A before any of phase B"
is therefore two steps of a Program, never a loop inside one kernel.

Also here: what a repeated call finds instead of making it again — shader modules and
pipelines (per kernel file, specialization, entry point, constants), parameter buffers (per
values), bind groups (per pipeline and bound buffers), building blocks (`lookup`) — so a
call whose shape was seen before creates no GPU object; buffers come from the memory pool
(wgprim/memory.py). Also folding of large grids into two dimensions, GPU timestamps per
step, and batching of several primitive calls into one submit (`with wgprim.batch(): ...`).
"""
from __future__ import annotations

import contextlib
import os
import re
import threading
import types
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from wgprim.array import buffer_size_for, check_alive
from wgprim.device import Device, check_current, get_device
from wgprim import native, transfer
from wgprim.memory import MemoryPool, pool_of
from wgprim.errors import WgprimError, explain_gpu_error
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
    device.cache("writable bindings")[pipeline] = frozenset(
        int(b) for b in _READ_WRITE.findall(module_source(kernel, preamble)))
    pipelines[key] = pipeline
    return pipeline


# The bindings a kernel may write: `var<storage, read_write>` (every kernel declares its
# inputs `read`). Exact-size buffers are copied back only where written, and a read from
# another thread is refused only where that thread's queued work writes.
_READ_WRITE = re.compile(r"@group\(0\)\s*@binding\((\d+)\)\s*var<storage\s*,\s*read_write>")


def writable_bindings(device: Device, pipeline) -> frozenset | None:
    """The binding numbers `pipeline` may write (None: not made by get_pipeline, so any)."""
    return device.cache("writable bindings").get(pipeline)


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


# Recordings kept for repeated one-shot calls (recorded()): at most this many per device,
# holding at most RECORDING_BYTES of temporaries together; a call whose temporaries exceed
# a quarter of that is recorded anew each time (its GPU time dwarfs the recording).
RECORDINGS = 256
RECORDING_BYTES = 1 << 30


class _WatchedModule(types.ModuleType):
    """The type given to wgprim.ops' modules: setting any of their attributes (a tile shape,
    a method switch, the spin budget a test sets to 0) counts as a change of settings."""

    def __setattr__(self, name, value):
        global _settings_changes
        _settings_changes += 1
        super().__setattr__(name, value)

    def __delattr__(self, name):
        global _settings_changes
        _settings_changes += 1
        super().__delattr__(name)


_settings_changes = 0
_watched_modules = 0  # len(sys.modules) when the ops modules were last made watched


def settings() -> tuple:
    """What a kept recording also depends on: how many times a setting of wgprim.ops'
    modules has changed (each assignment to a module attribute counts), and the device
    choice read from the environment. A test or a measurement that changes a setting gets
    new recordings."""
    global _watched_modules
    import sys

    if _watched_modules != len(sys.modules):
        for name, module in list(sys.modules.items()):
            if name.startswith("wgprim.ops.") and type(module) is types.ModuleType:
                module.__class__ = _WatchedModule
        _watched_modules = len(sys.modules)
    return _settings_changes, os.environ.get("WGPRIM_NO_SUBGROUPS")


def recorded(device: Device, key: tuple, arrays: tuple, record, label: str = "") -> "Program":
    """The Program of `record(program, *arrays)`, kept for `key` (what the recording depends
    on besides the arrays and the settings: the building blocks, options, sizes) and the
    arrays (their buffers, shapes, dtypes), so that a repeated call finds its steps —
    pipelines, parameters, bind groups, temporaries — and only submits them.

    The kept Program holds its temporaries and pins every buffer the recording made (e.g.
    an uploaded table) for as long as it is kept; the arrays' own buffers stay theirs: a
    result dropped by the caller goes back to the memory pool, and the next call of the same
    shape gets that buffer and this recording again. Recordings that bind a buffer the pool
    destroys are dropped with it. The key also holds the device's binding limit, its loop
    cap and settings() (tests change them). Thread-safe (two threads may record the same key at
    once; one recording is kept)."""
    buffers = tuple(a.buffer for a in arrays)
    full = (key, tuple((id(a.buffer), a.shape, a.dtype.str) for a in arrays), device.max_binding_bytes,
            device.loop_cap, settings())
    table = device.cache("recordings")
    with _lookup_lock:
        found = table.pop(full, None)
        if found is not None:
            table[full] = found
            return found[0]
    program = Program(device, label, transient=False, externals=frozenset(id(b) for b in buffers))
    try:
        record(program, *arrays)
        program._finish_copies()  # now, not at a run: threads may run a kept recording at once
    except BaseException:
        program.release()
        raise
    held = sum(b.size for b in program.held)
    if held > RECORDING_BYTES // 4:
        program.transient = True  # not kept: released once submitted, like any one-shot call
        return program
    doomed = []
    with _lookup_lock:
        if "forget" not in device.cache("recordings bookkeeping"):
            device.cache("recordings bookkeeping")["forget"] = True
            pool(device).on_destroy.append(lambda buffer: _forget_recordings(device, buffer))
        if full in table:  # another thread kept one first
            doomed.append(program)
            program = table[full][0]
        else:
            ids = frozenset(id(b) for b in buffers) | frozenset(id(b) for b in program.buffers())
            table[full] = (program, buffers, held, ids)
            index = device.cache("recordings by buffer")
            for i in ids:
                index.setdefault(i, set()).add(full)
            total = sum(entry[2] for entry in table.values())
            while table and (len(table) > RECORDINGS or total > RECORDING_BYTES):
                oldest = next(iter(table))
                old, _, old_held, old_ids = table.pop(oldest)
                _unindex(index, oldest, old_ids)
                total -= old_held
                doomed.append(old)
    for old in doomed:
        _drop(old)
    return program


def run_recorded(device: Device, key: tuple, arrays: tuple, record, label: str = "", reads: list | None = None,
                 keep: bool = True, stage=None):
    """recorded(...).run(reads=reads, stage=stage): a front door's one line to the GPU.
    keep=False records a one-shot Program instead, for a step inside a larger call whose
    arrays are that call's own intermediates (a recording kept for buffers that change from
    call to call would only be made again)."""
    if keep:
        program = recorded(device, key, arrays, record, label)
    else:
        program = Program(device, label)
        record(program, *arrays)
    return program.run(reads=reads, stage=stage)


def _drop(program: "Program") -> None:
    program.evicted = True
    if not program.waiting:
        program.release()


def _unindex(index: dict, key, ids) -> None:
    """Take `key` out of the sets of a by-buffer index (id(buffer) -> keys binding it)."""
    for i in ids:
        keys = index.get(i)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del index[i]


def _forget_recordings(device: Device, buffer) -> None:
    table = device.cache("recordings")
    index = device.cache("recordings by buffer")
    with _lookup_lock:
        dropped = []
        for k in list(index.get(id(buffer), ())):
            entry = table.pop(k, None)
            if entry is not None:
                _unindex(index, k, entry[3])
                dropped.append(entry[0])
    for program in dropped:
        _drop(program)


def forget_recordings(device: Device | None = None) -> None:
    """Drop every kept recording (their temporaries go back to the pool)."""
    device = device or get_device()
    table = device.cache("recordings")
    with _lookup_lock:
        dropped = [entry[0] for entry in table.values()]
        table.clear()
        device.cache("recordings by buffer").clear()
    for program in dropped:
        _drop(program)


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


def pool(device: Device) -> MemoryPool:
    """The device's memory pool (wgprim/memory.py): results and temporaries alike."""
    return pool_of(device)


# -- what a repeated call finds instead of making it again -----------------------------
PARAMS_CACHE_SIZE = 16384  # parameter buffers kept per device
BIND_GROUP_CACHE_SIZE = 8192  # bind groups kept per device
_cache_lock = threading.Lock()


def params_buffer(device: Device, values: tuple):
    """A uniform buffer holding `values` as u32, made and written once per distinct values
    and kept (LRU): a step's parameters depend only on its call's shape, so a repeated call
    binds the same buffer. Never written again, so sharing it is safe."""
    table = device.cache("params")
    with _cache_lock:
        buffer = table.pop(values, None)
        if buffer is not None:
            table[values] = buffer
            return buffer
    import wgpu

    data = np.zeros(-(-max(len(values), 1) // 4) * 4, np.uint32)
    data[: len(values)] = np.asarray(values, dtype=np.int64).astype(np.uint32)
    buffer = device.device.create_buffer(size=data.nbytes, usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
    transfer.write(device, buffer, 0, data)
    with _cache_lock:
        buffer = table.setdefault(values, buffer)
        while len(table) > PARAMS_CACHE_SIZE:  # dropped, not destroyed: cached bind groups may hold it
            del table[next(iter(table))]
    return buffer


def _layout(device: Device, pipeline):
    layouts = device.cache("layouts")
    found = layouts.get(pipeline)
    if found is None:
        found = layouts[pipeline] = pipeline.get_bind_group_layout(0)
    return found


def bind_group(device: Device, pipeline, entries: tuple):
    """The bind group of `pipeline` for `entries` ((binding, buffer, offset, size), sorted),
    made once per distinct entries and kept (LRU; forgotten when the memory pool destroys a
    buffer it binds)."""
    table = device.cache("bind groups")
    key = (pipeline, entries)
    with _cache_lock:
        found = table.pop(key, None)
        if found is not None:
            table[key] = found
            return found
    descriptor = [{"binding": b, "resource": {"buffer": buf, "offset": off, "size": size}}
                  for b, buf, off, size in entries]
    made = device.device.create_bind_group(layout=_layout(device, pipeline), entries=descriptor)
    with _cache_lock:
        if "forget" not in device.cache("memory"):
            device.cache("memory")["forget"] = True
            pool(device).on_destroy.append(lambda buffer: _forget_bind_groups(device, buffer))
        index = device.cache("bind groups by buffer")
        if key not in table:
            for e in entries:
                index.setdefault(id(e[1]), set()).add(key)
        found = table.setdefault(key, made)
        while len(table) > BIND_GROUP_CACHE_SIZE:
            oldest = next(iter(table))
            del table[oldest]
            _unindex(index, oldest, {id(e[1]) for e in oldest[1]})
    return found


def _forget_bind_groups(device: Device, buffer) -> None:
    table = device.cache("bind groups")
    index = device.cache("bind groups by buffer")
    with _cache_lock:
        for key in list(index.get(id(buffer), ())):
            if table.pop(key, None) is not None:
                _unindex(index, key, {id(e[1]) for e in key[1]})
        index.pop(id(buffer), None)


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


@dataclass
class StepTime:
    label: str
    ms: float


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
    evicted: bool = False  # dropped from the kept recordings: release once no batch holds it
    # Exact-size buffers (a caller's, of a size not a multiple of 16): id -> (buffer, its
    # padded copy), every step using the copy; the copies written, to copy back at run().
    padded: dict = field(default_factory=dict)
    copy_back: list = field(default_factory=list)
    written: set = field(default_factory=set)  # ids of the buffers the steps may write

    def __post_init__(self):
        check_current(self.device, "a program")
        self.pool = pool(self.device)

    def __del__(self):
        if self.pinned:  # recorded, never submitted (an error while recording): noted, no lock taken
            self.pool.unpins.append(self.pinned)

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
        if _open_batches:  # another thread's queued work may write what this one reads
            check_not_pending(self.device, (b for step in self.steps for b in step.buffers),
                              f"an Array that {self.label or 'a call'} uses")
        sink = getattr(_profiling, "sink", None)
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
        pending = [] if alone else _take_queued()
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
        from wgprim.memory import Block

        nbytes = -(-max(result.nbytes, 4) // 4) * 4
        stage = Block(self.pool.take(nbytes, _usage_staging()), self.pool)
        result.block.staged = None  # until this submit has made the new bytes
        pending = [] if alone else _take_queued()
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
            if self.evicted and not self.waiting:
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
# Every thread's stack of open batches, while it has one: (thread name, stack) by thread id.
# Work queued in one thread's batch is submitted only when that thread's block ends, so
# other threads must not read what it writes before then (check_not_pending).
_open_batches: dict = {}
_open_lock = threading.Lock()


def check_not_pending(device: Device, buffers, what: str) -> None:
    """WgprimError when work queued in another thread's open batch() may write one of
    `buffers` (an iterable, looked at only while another thread has an open batch): that
    work is not submitted yet, so reading now would give what the buffer held before."""
    if not _open_batches:
        return
    me = threading.get_ident()
    with _open_lock:
        others = [(name, list(stack)) for ident, (name, stack) in _open_batches.items() if ident != me]
    queued_writes = [(name, program) for name, stack in others for b in stack for program in list(b)
                     if program.device is device and program.written]
    if not queued_writes:
        return
    ids = {id(b) for b in buffers}
    for name, program in queued_writes:
        if ids & program.written:
            raise WgprimError(
                f"{what} is written by work queued in the open wgprim.batch() of thread {name!r}, which is "
                "submitted only when that block ends: read it (or pass it to a call) after that thread's "
                "`with wgprim.batch():` block has ended, or in that thread (where a read submits the queued "
                "work first)")


def open_batch_thread(device: Device | None = None) -> str | None:
    """The name of a thread (this one included) whose open batch() holds queued work, or of
    this thread if it is inside a batch() block at all; None when there is none."""
    if getattr(_batches, "stack", None):
        return threading.current_thread().name
    with _open_lock:
        for name, stack in _open_batches.values():
            if any(len(b) for b in stack):
                return name
    return None


def active_batch(device: Device):
    stack = getattr(_batches, "stack", None)
    return stack[-1] if stack else None


class _Batch(list):
    """Programs queued by the calls of one `with batch():` block, submitted together. The
    buffers their steps use are pinned in the memory pool until then (an Array dropped
    inside the block does not hand its buffer to another call before its work has run)."""

    def __init__(self, device: Device):
        super().__init__()
        self.device = device

    def queue(self, program: Program) -> None:
        if not program.transient:  # a kept program binds the call's own buffers unpinned
            program.waiting += 1
            program.pool.pin(program.buffers())
        self.append(program)

    def take(self) -> list:
        """Every queued program, removed (the caller submits them, then calls after_submit
        on each; or unpins them with release_queued)."""
        programs, self[:] = list(self), []
        return programs

    def submit(self) -> None:
        if not self:
            return
        programs = self.take()
        try:
            submit(self.device, programs)
        finally:
            for program in programs:
                program.after_submit(queued=True)


def _take_queued() -> list:
    """Every program queued in this thread's batches, outermost first, removed."""
    return [p for b in getattr(_batches, "stack", []) or [] for p in b.take()]


def queued(program: Program) -> bool:
    """True while `program` waits in an active batch (nested ones included)."""
    return any(p is program for b in getattr(_batches, "stack", []) or [] for p in b)


def flush_batch(device: Device | None = None) -> None:
    """Submit the work queued in this thread's batches (before reading results back)."""
    programs = _take_queued()
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
    stack = getattr(_batches, "stack", None)
    if stack is None:
        stack = _batches.stack = []
    b = _Batch(get_device())
    if not stack:
        with _open_lock:
            _open_batches[threading.get_ident()] = (threading.current_thread().name, stack)
    stack.append(b)
    try:
        yield b
    finally:
        stack.pop()
        if stack:  # nested: the outer batch submits it, after what it queued before
            stack[-1].extend(b)
            b.clear()
        else:
            try:
                b.submit()
            finally:
                with _open_lock:
                    _open_batches.pop(threading.get_ident(), None)


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
            program = Program(self.device, self.label, transient=False)
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

    def run(self, *arrays, profile: bool = False, variant=None, stage=None):
        """Run the calling thread's steps, recorded anew when the buffers of `arrays` or
        `variant` (anything else the recording depends on, e.g. the passes a probe chose)
        differ from the last recording's. `stage`: as Program.run's."""
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
        return state.program.run(profile=profile, stage=stage)


@dataclass
class _PlanState:
    """One thread's recording of a Plan."""

    program: Program
    key: tuple | None = None
    arrays: tuple = ()
    results: object = None
