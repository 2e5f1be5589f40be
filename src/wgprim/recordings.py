"""Kept recordings: the Program of a one-shot call, recorded once for its key and arrays and
submitted again by every repeated call (`recorded`, `run_recorded`), kept in a bounded LRU
(lru.py): at most RECORDINGS of them, holding temporaries of at most the memory pool's limit
together (the limit that bounds its free blocks, which by default follows the most bytes in
use at once). Their temporaries are the pool's: lent while the recording is kept (counted in
the pool's `kept_bytes`), given back when it is dropped, so a new length takes the blocks of
its class that an older length's recording gave back. Dropped with any buffer the pool
destroys, and all of them by the pool's `free_all_blocks` (a call recorded again next time)."""
from __future__ import annotations

import os

from wgprim.caches import unindex
from wgprim.device import Device, get_device
from wgprim.lru import LRU
from wgprim.memory import pool_of
from wgprim.program import Program
from wgprim.tuning import in_force

# Recordings kept for repeated one-shot calls (recorded()): at most this many per device,
# holding at most the pool's limit of temporaries together; a call whose temporaries exceed
# RECORDING_SHARE of that limit is recorded anew each time (its GPU time dwarfs the
# recording, and its temporaries go back to the pool's free blocks for the next call).
RECORDINGS = 256
RECORDING_SHARE = 0.25


def settings() -> tuple:
    """What a kept recording also depends on besides its key: the policy changes in force
    (wgprim.tuning.using) and the device choice read from the environment. A test or a
    measurement that changes either gets new recordings."""
    return in_force(), os.environ.get("WGPRIM_NO_SUBGROUPS")


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
    once; one recording is kept). The caller runs the Program, then calls finished(): until
    then another thread's eviction does not give its temporaries back."""
    buffers = tuple(a.buffer for a in arrays)
    full = (key, tuple((id(a.buffer), a.shape, a.dtype.str) for a in arrays), device.max_binding_bytes,
            device.loop_cap, settings())
    table, index, doomed = _table(device)
    with table.lock:
        found = table.get(full)
        if found is not None:
            found[0].running += 1  # until finished(): no other thread's eviction releases it before
            return found[0]
    program = Program(device, label, transient=False, externals=frozenset(id(b) for b in buffers))
    try:
        record(program, *arrays)
        program._finish_copies()  # now, not at a run: threads may run a kept recording at once
    except BaseException:
        program.release()
        raise
    held = sum(b.size for b in program.held)
    pool = pool_of(device)
    if held > pool.limit * RECORDING_SHARE:
        program.transient = True  # not kept: released once submitted, like any one-shot call
        return program
    with table.lock:
        first = table.get(full)
        if first is None:
            ids = frozenset(id(b) for b in buffers) | frozenset(id(b) for b in program.buffers())
            for i in ids:
                index.setdefault(i, set()).add(full)
            pool.note_kept(held)
            program.running += 1
            table.max_bytes = pool.limit
            table.keep(full, (program, buffers, held, ids), held)
        else:
            first[0].running += 1
    if first is not None:  # another thread kept one first
        program.release()
        program = first[0]
    _drop_doomed(device)
    return program


def finished(device: Device, program: "Program") -> None:
    """The call that got `program` from recorded() has submitted (or queued) it: an
    eviction meanwhile released nothing, so release it now if it was evicted."""
    if program.transient:
        return
    table = _table(device)[0]
    with table.lock:
        program.running -= 1
        release = program.evicted and not program.running and not program.waiting
    if release:
        program.release()


def _table(device: Device):
    """The device's kept recordings (an LRU of key -> (program, arrays' buffers, bytes
    held, ids of the buffers bound)), their index by buffer (id -> keys), and the list of
    programs evicted and not yet released (released outside the table's lock)."""
    table = device.cache("recordings")
    if isinstance(table, LRU):
        return table, device.cache("recordings by buffer"), device.cache("recordings bookkeeping")["doomed"]
    index = device.cache("recordings by buffer")
    doomed = []

    def evicted(key, entry):
        unindex(index, key, entry[3])
        doomed.append((entry[0], entry[2]))

    table = device.lru("recordings", RECORDINGS, evicted)
    with table.lock:
        bookkeeping = device.cache("recordings bookkeeping")
        if "doomed" not in bookkeeping:
            bookkeeping["doomed"] = doomed
            pool = pool_of(device)
            pool.on_destroy.append(lambda buffer: _forget_recordings(device, buffer))
            pool.releasers["recordings"] = lambda: forget_recordings(device)
    return table, index, device.cache("recordings bookkeeping")["doomed"]


def _drop_doomed(device: Device) -> None:
    """Release the programs evicted since (their temporaries go back to the pool)."""
    _, _, doomed = _table(device)
    while doomed:
        try:
            program, held = doomed.pop(0)
        except IndexError:
            break
        _drop(device, program, held)


def run_recorded(device: Device, key: tuple, arrays: tuple, record, label: str = "", reads: list | None = None,
                 keep: bool = True, stage=None):
    """recorded(...).run(reads=reads, stage=stage): a front door's one line to the GPU.
    keep=False records a one-shot Program instead, for a step inside a larger call whose
    arrays are that call's own intermediates (a recording kept for buffers that change from
    call to call would only be made again)."""
    if not keep:
        program = Program(device, label)
        record(program, *arrays)
        return program.run(reads=reads, stage=stage)
    program = recorded(device, key, arrays, record, label)
    try:
        return program.run(reads=reads, stage=stage)
    finally:
        finished(device, program)


def _drop(device: Device, program: "Program", held: int) -> None:
    pool_of(device).note_kept(-held)
    with _table(device)[0].lock:
        program.evicted = True
        release = not program.waiting and not program.running
    if release:  # else its last call or batch releases it
        program.release()


def _forget_recordings(device: Device, buffer) -> None:
    table, index, _ = _table(device)
    with table.lock:
        for k in list(index.get(id(buffer), ())):
            entry = table.pop(k)
            if entry is not None:
                unindex(index, k, entry[3])
                _table(device)[2].append((entry[0], entry[2]))
    _drop_doomed(device)


def forget_recordings(device: Device | None = None) -> None:
    """Drop every kept recording (their temporaries go back to the pool)."""
    device = device or get_device()
    table, _, _ = _table(device)
    table.evict_all()
    _drop_doomed(device)
