"""Plans: steps built once and run many times, one recording per thread."""
from __future__ import annotations

import threading
from dataclasses import dataclass

from wgprim.batching import queued
from wgprim.device import Device, check_current
from wgprim.program import Program, flush_batch


class HoldsGPU:
    """A plan (or anything else holding pipelines and buffers of one open device): pickling
    or copying it is a TypeError that says what to do instead, raised before any GPU object
    is half copied."""

    def __reduce_ex__(self, protocol):
        raise TypeError(f"a {type(self).__name__} holds GPU pipelines and buffers of one device and cannot be "
                        "pickled or copied: make a new one where it is needed (its arguments are cheap to send)")


class Plan(HoldsGPU):
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
