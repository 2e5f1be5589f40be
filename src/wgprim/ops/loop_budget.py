"""How much looping one invocation may do on a device whose driver caps it.

Mesa's llvmpipe (lavapipe) ends every loop of an invocation once that invocation has run
`device.loop_cap` loop iterations in all (65,535), silently: the kernel then computes
garbage. A loop costs its trips plus one (the failing test at its head counts too;
measured on lavapipe), and loops fully unrolled at compile time cost nothing.

Kernels whose loop trips can grow with the input (a workgroup walking a long segment, a
look-back over unpublished tiles) bound their work per dispatch on such devices: the host
asks `max_trips` how many trips of the growing loop fit, and cuts the work so that no
invocation needs more. Where no cap is known (None: every GPU driver), nothing changes.
"""
from __future__ import annotations

# The share of the cap a bounded loop may take: the rest is for the kernel's other loops
# (block scans, tile loads, tails: a few hundred trips at most) and a margin.
SHARE = 2


def budget(device) -> int | None:
    """Loop iterations one growing loop of an invocation may use on `device` (None: no cap)."""
    cap = getattr(device, "loop_cap", None)
    if cap is None:
        return None
    return max(1, cap // SHARE)


def max_trips(device, per_trip: int, fixed: int = 0) -> int | None:
    """The most trips of a loop whose every trip costs `per_trip` iterations (its own and
    those of the loops inside it), after `fixed` iterations of the rest, that fit the
    device's budget: at least 1, None where no cap is known."""
    total = budget(device)
    if total is None:
        return None
    return max(1, (total - fixed) // max(1, per_trip))
