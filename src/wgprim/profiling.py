"""GPU timestamps per step (Program.run(profile=True)) and `profile()`, which times every
step of every Program run in a block."""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass

import numpy as np

from wgprim.device import Device


@dataclass
class StepTime:
    label: str
    ms: float


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


def profiling_sink():
    """The list an open profile() block collects step times into, or None."""
    return getattr(_profiling, "sink", None)
