"""What an adapter really does, found by running a kernel once per device: whether its
subgroups are runs of consecutive invocations (what the subgroup scans need)."""
from __future__ import annotations

import numpy as np

from wgprim.device import Device
from wgprim.pipelines import get_pipeline
from wgprim.program import Program


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
