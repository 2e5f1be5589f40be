"""The block scan and the block reduce: the workgroup-level building blocks (CUB's
BlockScan / BlockReduce) that scan, compaction, the radix sort and reductions share.

Kernels call, with one value per invocation (kernels/block_scan_barrier.wgsl):
    block_exclusive_scan(inv: Invocation, v: BlockT) -> BlockT
    block_exclusive_scan_total(inv: Invocation, v: BlockT) -> BlockScan  (.before, .total)
    block_reduce(t: u32, v: BlockT) -> BlockT                  (kernels/block_reduce.wgsl)
where `Invocation` (defined by the fragment: index, wid, nwg, and the subgroup builtins on
the subgroup path) is what the kernel's entry point takes. The scan has two paths with the
same functions: subgroup operations where the adapter's subgroups are runs of consecutive
invocations (probed once per device), workgroup memory and barriers elsewhere.

The fragments are written against their own names (BlockT, block_identity, block_combine),
bound here to any element type and operator, so they never collide with the operator
preamble's T, A, combine: `scan_preamble(device, "vec4<u32>")` gives a sum of vec4<u32>;
`scan_preamble(device, OPERATOR)` scans with the operator preamble's combine on T.
"""
from __future__ import annotations

from dataclasses import dataclass

from wgprim.device import Device
from wgprim.pipelines import kernel_source
from wgprim.probes import consecutive_subgroups

SUBGROUP_PATH, BARRIER_PATH = "block_scan_subgroup", "block_scan_barrier"


@dataclass(frozen=True)
class Binding:
    """What the fragments combine: a WGSL type, an associative expression of `a` and `b`,
    its identity, and whether it is a plain `a + b` (the subgroup path then uses the
    hardware's subgroupInclusiveAdd; an operator's sum keeps the shuffles, whose order
    of float additions is the one the error bounds count)."""

    elem: str
    combine: str = "a + b"
    identity: str | None = None  # default: BlockT(0) (zero of the type)
    hardware_sum: bool = True

    def wgsl(self) -> str:
        identity = self.identity or "BlockT()"
        return (
            f"alias BlockT = {self.elem};\n"
            f"const BLOCK_SUM: bool = {'true' if self.hardware_sum else 'false'};\n"
            f"fn block_identity() -> BlockT {{ return {identity}; }}\n"
            f"fn block_combine(a: BlockT, b: BlockT) -> BlockT {{ return {self.combine}; }}\n"
        )


# The operator preamble's monoid on T (ops/operators.py, for_scan=True).
OPERATOR = Binding("T", "combine(a, b)", "identity()", hardware_sum=False)
# The reduction preamble's accumulator (ops/operators.py): any type A, structs included.
ACCUMULATOR = Binding("A", "combine(a, b)", "identity()", hardware_sum=False)


def path(device: Device) -> str:
    """The block scan file for this device: the subgroup path where subgroups are runs of
    consecutive invocations (probed once), else the barrier path."""
    return SUBGROUP_PATH if consecutive_subgroups(device) else BARRIER_PATH


def scan_preamble(device: Device | None, binding: Binding | str, subgroups: bool | None = None) -> str:
    """WGSL for a kernel's preamble: `binding` (a Binding, or a type name for its sum) and
    the block scan of this device's path (`subgroups` forces one; None: the device's)."""
    if isinstance(binding, str):
        binding = Binding(binding)
    if subgroups is None:
        subgroups = path(device) == SUBGROUP_PATH
    return binding.wgsl() + kernel_source(SUBGROUP_PATH if subgroups else BARRIER_PATH)


def reduce_preamble(binding: Binding | str) -> str:
    """WGSL for a kernel's preamble: `binding` and block_reduce (one path, the tree)."""
    if isinstance(binding, str):
        binding = Binding(binding)
    return binding.wgsl() + kernel_source("block_reduce")
