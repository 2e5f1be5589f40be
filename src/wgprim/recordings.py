"""Kept recordings: the Program of a one-shot call, recorded once for its key and arrays and
submitted again by every repeated call (`recorded`, `run_recorded`), bounded in number and
in the bytes of temporaries they hold; dropped with any buffer the pool destroys."""
from __future__ import annotations

import os
import threading
import types

from wgprim.caches import unindex
from wgprim.device import Device, get_device
from wgprim.memory import pool_of
from wgprim.program import Program
from wgprim.tuning import in_force

_recordings_lock = threading.Lock()

# Recordings kept for repeated one-shot calls (recorded()): at most this many per device,
# holding at most RECORDING_BYTES of temporaries together; a call whose temporaries exceed
# a quarter of that is recorded anew each time (its GPU time dwarfs the recording).
RECORDINGS = 256
RECORDING_BYTES = 1 << 30


class _WatchedModule(types.ModuleType):
    """The type given to wgprim.ops' modules: setting any of their attributes counts as a
    change of settings. Families with a policy (wgprim.tuning) need none of this; it stays
    for the module constants of the scans, reductions, searches and axis kernels that
    tests still set (a table size, a partials count)."""

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
    modules has changed (each assignment to a module attribute counts), the policy changes
    in force (wgprim.tuning.using), and the device
    choice read from the environment. A test or a measurement that changes a setting gets
    new recordings."""
    global _watched_modules
    import sys

    if _watched_modules != len(sys.modules):
        for name, module in list(sys.modules.items()):
            if name.startswith("wgprim.ops.") and type(module) is types.ModuleType:
                module.__class__ = _WatchedModule
        _watched_modules = len(sys.modules)
    return _settings_changes, in_force(), os.environ.get("WGPRIM_NO_SUBGROUPS")


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
    cap and settings() (tests change all three). Thread-safe (two threads may record the same key at
    once; one recording is kept)."""
    buffers = tuple(a.buffer for a in arrays)
    full = (key, tuple((id(a.buffer), a.shape, a.dtype.str) for a in arrays), device.max_binding_bytes,
            device.loop_cap, settings())
    table = device.cache("recordings")
    with _recordings_lock:
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
    with _recordings_lock:
        if "forget" not in device.cache("recordings bookkeeping"):
            device.cache("recordings bookkeeping")["forget"] = True
            pool_of(device).on_destroy.append(lambda buffer: _forget_recordings(device, buffer))
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
                unindex(index, oldest, old_ids)
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


def _forget_recordings(device: Device, buffer) -> None:
    table = device.cache("recordings")
    index = device.cache("recordings by buffer")
    with _recordings_lock:
        dropped = []
        for k in list(index.get(id(buffer), ())):
            entry = table.pop(k, None)
            if entry is not None:
                unindex(index, k, entry[3])
                dropped.append(entry[0])
    for program in dropped:
        _drop(program)


def forget_recordings(device: Device | None = None) -> None:
    """Drop every kept recording (their temporaries go back to the pool)."""
    device = device or get_device()
    table = device.cache("recordings")
    with _recordings_lock:
        dropped = [entry[0] for entry in table.values()]
        table.clear()
        device.cache("recordings by buffer").clear()
    for program in dropped:
        _drop(program)
