"""The reference text's claim: a 256-element block scan's 8 steps done inside one
workgroup (one dispatch, barriers) against the same 8 steps as 8 global dispatches
"would be hundreds of times slower". Measured, not assumed.

Both forms work on independent 256-element segments, so arrays larger than one storage
binding are processed in binding-sized chunks of whole segments (one dispatch per chunk
and step)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.bench import timing

SEGMENT = 256


@dataclass
class ClaimRow:
    n: int
    fused_gpu_ms: float | None
    steps_gpu_ms: float | None
    fused_wall_ms: float  # wall time of the same runs, per run (submit to completion)
    steps_wall_ms: float
    ok: bool
    flags: list

    @property
    def gpu_ratio(self):
        return self.steps_gpu_ms / self.fused_gpu_ms if self.fused_gpu_ms and self.steps_gpu_ms else None

    @property
    def wall_ratio(self):
        return self.steps_wall_ms / self.fused_wall_ms if self.fused_wall_ms else None


def programs(n: int):
    """(fused program, 8-step program, input, the two outputs) for n = k * 256."""
    import wgprim
    from wgprim.ops.common import chunks
    from wgprim.ops import block_scan
    from wgprim.pipelines import get_pipeline
    from wgprim.program import Program

    dev = wgprim.get_device()
    x = wgprim.asarray(np.random.default_rng(1).integers(0, 1000, n).astype(np.uint32))
    out_fused, ping, pong = (wgprim.empty((n,), np.uint32) for _ in range(3))
    windows = chunks(n, 4, SEGMENT, dev)
    fused = Program(dev, "block scan, one dispatch", transient=False)
    barrier_scan = block_scan.scan_preamble(dev, "u32", subgroups=False)  # the claim is about barriers
    block = get_pipeline(dev, "blockscan_claim", barrier_scan, "block_scan")
    for c in windows:
        groups = c.count // SEGMENT
        fused.dispatch("block scan", block, {0: fused.params(c.count, groups, 0), 1: c.view(x), 2: c.view(out_fused)},
                       groups)
    steps = Program(dev, "block scan, one dispatch per step", transient=False)
    step = get_pipeline(dev, "blockscan_claim", barrier_scan, "scan_step")
    src = x
    for k in range(8):
        dst = ping if k % 2 == 0 else pong
        for c in windows:
            groups = c.count // SEGMENT
            steps.dispatch(f"step {1 << k}", step, {0: steps.params(c.count, groups, 1 << k), 1: c.view(src),
                                                    2: c.view(dst)}, groups)
        src = dst
    return fused, steps, x, out_fused, src


def measure(n: int, protocol) -> ClaimRow:
    import wgprim
    from wgprim.bench.harness import choose_k, flags_of, warm

    dev = wgprim.get_device()
    fused, steps, x, out_fused, out_steps = programs(n)
    fused.run()
    steps.run()
    expected = np.cumsum(x.numpy().reshape(-1, SEGMENT), axis=1, dtype=np.uint32).ravel()
    ok = np.array_equal(out_fused.numpy(), expected) and np.array_equal(out_steps.numpy(), expected)
    timers = {}
    for name, program in (("fused", fused), ("steps", steps)):
        one = timing.SubmitTimer(dev, [program], 1)
        k = choose_k(one.run().ms, protocol)
        one.release(programs=False)
        timers[name] = timing.SubmitTimer(dev, [program], k)
    warm({name: (t, "submit") for name, t in timers.items()}, protocol, steady_on="steps")
    results = {name: [] for name in timers}
    for _ in range(protocol.rounds):
        for name, timer in timers.items():
            results[name].append(timer.run())
    stats = {name: timing.summary(r, timers[name].k, "submit") for name, r in results.items()}
    for timer in timers.values():
        timer.release(programs=False)
    return ClaimRow(n, stats["fused"]["median_ms"], stats["steps"]["median_ms"], stats["fused"]["wall_ms"],
                    stats["steps"]["wall_ms"], bool(ok), flags_of("fused", stats["fused"]) + flags_of("steps", stats["steps"]))
