"""The reference text's claim: a 256-element block scan's 8 steps done inside one
workgroup (one dispatch, barriers) against the same 8 steps as 8 global dispatches
"would be hundreds of times slower". Measured, not assumed."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wgprim.bench import timing


@dataclass
class ClaimRow:
    n: int
    fused_gpu_ms: float | None
    steps_gpu_ms: float | None
    fused_end_to_end_ms: float
    steps_end_to_end_ms: float
    ok: bool

    @property
    def gpu_ratio(self):
        return self.steps_gpu_ms / self.fused_gpu_ms if self.fused_gpu_ms and self.steps_gpu_ms else None

    @property
    def end_to_end_ratio(self):
        return self.steps_end_to_end_ms / self.fused_end_to_end_ms


def programs(n: int):
    """(fused program, 8-dispatch program, input, the two outputs) for n = k * 256."""
    import wgprim
    from wgprim.ops import block_scan
    from wgprim.program import Program, get_pipeline

    dev = wgprim.get_device()
    groups = n // 256
    x = wgprim.asarray(np.random.default_rng(1).integers(0, 1000, n).astype(np.uint32))
    out_fused, ping, pong = (wgprim.empty((n,), np.uint32) for _ in range(3))
    fused = Program(dev, "block scan, one dispatch", transient=False)
    barrier_scan = block_scan.scan_preamble(dev, "u32", subgroups=False)  # the claim is about barriers
    fused.dispatch("block scan", get_pipeline(dev, "blockscan_claim", barrier_scan, "block_scan"),
                   {0: fused.params(n, groups, 0), 1: x.buffer, 2: out_fused.buffer}, groups)
    steps = Program(dev, "block scan, one dispatch per step", transient=False)
    step = get_pipeline(dev, "blockscan_claim", barrier_scan, "scan_step")
    src = x
    for k in range(8):
        dst = ping if k % 2 == 0 else pong
        steps.dispatch(f"step {1 << k}", step, {0: steps.params(n, groups, 1 << k), 1: src.buffer, 2: dst.buffer}, groups)
        src = dst
    return fused, steps, x, out_fused, src


def measure(n: int, repeat: int) -> ClaimRow:
    fused, steps, x, out_fused, out_steps = programs(n)
    fused.run()
    steps.run()
    expected = np.cumsum(x.numpy().reshape(-1, 256), axis=1, dtype=np.uint32).ravel()
    ok = np.array_equal(out_fused.numpy(), expected) and np.array_equal(out_steps.numpy(), expected)
    sync = lambda _: out_fused.device.device.queue.read_buffer(out_fused.buffer, 0, 16)
    return ClaimRow(
        n,
        timing.wgprim_gpu_ms(fused.run, repeat),
        timing.wgprim_gpu_ms(steps.run, repeat),
        timing.end_to_end_ms(fused.run, sync, repeat),
        timing.end_to_end_ms(steps.run, sync, repeat),
        bool(ok),
    )
