"""Which batches are open, in which threads (`with wgprim.batch():` is program.batch): the
programs each holds, what they write, and the checks that keep other threads from reading
results that queued work has not made yet. Below the device, so that use_adapter() can
refuse to switch devices inside an open batch."""
from __future__ import annotations

import threading

from wgprim.errors import WgprimError

_batches = threading.local()
# Every thread's stack of open batches, while it has one: (thread name, stack) by thread id.
# Work queued in one thread's batch is submitted only when that thread's block ends, so
# other threads must not read what it writes before then (check_not_pending).
_open_batches: dict = {}
_open_lock = threading.Lock()


def check_not_pending(device, buffers, what: str) -> None:
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


def open_batch_thread(device=None) -> str | None:
    """The name of a thread (this one included) whose open batch() holds queued work, or of
    this thread if it is inside a batch() block at all; None when there is none."""
    if getattr(_batches, "stack", None):
        return threading.current_thread().name
    with _open_lock:
        for name, stack in _open_batches.values():
            if any(len(b) for b in stack):
                return name
    return None


def active_batch(device) -> "Batch | None":
    stack = getattr(_batches, "stack", None)
    return stack[-1] if stack else None


def take_queued() -> list:
    """Every program queued in this thread's batches, outermost first, removed."""
    return [p for b in getattr(_batches, "stack", []) or [] for p in b.take()]


def queued(program) -> bool:
    """True while `program` waits in an active batch (nested ones included)."""
    return any(p is program for b in getattr(_batches, "stack", []) or [] for p in b)


class Batch(list):
    """Programs queued by the calls of one `with batch():` block, submitted together. The
    buffers their steps use are pinned in the memory pool until then (an Array dropped
    inside the block does not hand its buffer to another call before its work has run)."""

    def __init__(self, device):
        super().__init__()
        self.device = device

    def queue(self, program) -> None:
        if not program.transient:  # a kept program binds the call's own buffers unpinned
            program.waiting += 1
            program.pool.pin(program.buffers())
        self.append(program)

    def take(self) -> list:
        """Every queued program, removed (the caller submits them, then calls after_submit
        on each; or unpins them with release_queued)."""
        programs, self[:] = list(self), []
        return programs


def push(b: Batch) -> list:
    """Open `b` in this thread (innermost); returns this thread's stack of open batches."""
    stack = getattr(_batches, "stack", None)
    if stack is None:
        stack = _batches.stack = []
    if not stack:
        with _open_lock:
            _open_batches[threading.get_ident()] = (threading.current_thread().name, stack)
    stack.append(b)
    return stack


def pop() -> bool:
    """Close this thread's innermost batch; True when it was the outermost (its programs
    are then the caller's to submit), False when an outer batch takes them over."""
    stack = _batches.stack
    b = stack.pop()
    if stack:  # nested: the outer batch submits it, after what it queued before
        stack[-1].extend(b)
        b.clear()
        return False
    return True


def closed() -> None:
    """This thread has no open batch any more."""
    with _open_lock:
        _open_batches.pop(threading.get_ident(), None)


def any_open() -> bool:
    """Whether some thread has an open batch (then reads check check_not_pending)."""
    return bool(_open_batches)
