"""The simulated GPU: compute units, each with a fixed number of resident slots."""
from __future__ import annotations

from dataclasses import dataclass

# A compute unit's capacity, roughly that of current desktop GPUs (an NVIDIA SM runs up to
# 2048 threads and 32 blocks, with 64 KiB or more of shared memory).
CU_INVOCATIONS = 2048
CU_WORKGROUP_MEMORY = 65536
CU_MAX_WORKGROUPS = 32


def resident_per_cu(workgroup_size: int, workgroup_memory: int = 0, *,
                    cu_invocations: int = CU_INVOCATIONS,
                    cu_workgroup_memory: int = CU_WORKGROUP_MEMORY,
                    cu_max_workgroups: int = CU_MAX_WORKGROUPS) -> int:
    """How many workgroups fit on one compute unit at once.

    The scheduler places a workgroup on a compute unit only if its invocations and its
    workgroup memory fit next to the ones already there; the scarcest resource decides.
    Raises ValueError when not even one workgroup fits.
    """
    if workgroup_size < 1:
        raise ValueError(f"workgroup size must be >= 1, got {workgroup_size}")
    if workgroup_memory < 0:
        raise ValueError(f"workgroup memory must be >= 0, got {workgroup_memory}")
    limits = [cu_max_workgroups, cu_invocations // workgroup_size]
    if workgroup_memory:
        limits.append(cu_workgroup_memory // workgroup_memory)
    resident = min(limits)
    if resident < 1:
        raise ValueError(
            f"a workgroup of {workgroup_size} invocations and {workgroup_memory} bytes of "
            f"workgroup memory does not fit in a compute unit of {cu_invocations} "
            f"invocations and {cu_workgroup_memory} bytes")
    return resident


@dataclass(frozen=True)
class Machine:
    """`compute_units` compute units with `resident` slots each.

    A slot holds one workgroup from the moment it starts until it finishes, including
    while it waits: a GPU never evicts a running workgroup to make room for another.
    """

    compute_units: int = 2
    resident: int = 8

    def __post_init__(self):
        for name in ("compute_units", "resident"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")

    @classmethod
    def from_workgroup(cls, compute_units: int, workgroup_size: int, workgroup_memory: int = 0,
                       **capacity) -> "Machine":
        """A machine whose slot count follows from what one workgroup uses."""
        return cls(compute_units, resident_per_cu(workgroup_size, workgroup_memory, **capacity))

    @property
    def slots(self) -> int:
        return self.compute_units * self.resident

    def compute_unit_of(self, slot: int) -> int:
        return slot // self.resident

    def fill_order(self) -> list[int]:
        """Slots in the order an idle GPU fills them: round-robin over compute units."""
        return [cu * self.resident + r for r in range(self.resident)
                for cu in range(self.compute_units)]

    def describe(self) -> str:
        return (f"{self.compute_units} compute unit{'s' if self.compute_units != 1 else ''}"
                f" × {self.resident} resident = {self.slots} slot{'s' if self.slots != 1 else ''}")
