"""Bitonic sort: records the sorting network of kernels/bitonic_sort.wgsl into a Program.

For m = 2^p padded keys and tiles of LOCAL keys, the dispatches are:
  bitonic local (k = 2 .. LOCAL, every stride: the whole tile sorted in workgroup memory)
  then for each k = 2*LOCAL .. m:
     bitonic global, once per stride j = k/2 .. LOCAL (these pair keys of different tiles)
     bitonic local (strides LOCAL/2 .. 1 of this k)
so log2(m/LOCAL) * (log2(m/LOCAL) + 3) / 2 + 1 dispatches: 1 up to LOCAL keys, 3 for
2*LOCAL, 55 for 2^21 keys with LOCAL = 4096. Every dispatch reads and writes all m keys,
so the traffic grows as m log^2 m: the radix sort's (4 passes of about 12 bytes per key)
wins from a few tens of thousands of keys on; the network needs no scan and no
temporaries up to LOCAL keys (one dispatch).
Keys only; the network is not stable, which `sort` cannot show (equal keys look alike,
and the two zeros come back as +0.0).
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.device import Device
from wgprim.ops.radix_sort import DESCENDING, KIND
from wgprim.program import Program, get_pipeline, kernel_source, lookup

WG = 256
LOAD_INPUT, STORE_OUTPUT = 1, 2


def local_size(device: Device) -> int:
    """Keys per workgroup: 4096 (16 KiB, the WebGPU minimum of workgroup memory) or less."""
    local = 4096
    while 4 * local > device.max_workgroup_storage:
        local //= 2
    return local


class BitonicSorter:
    """Pipelines for one (device, key dtype, direction); records sorts into Programs."""

    def __init__(self, device: Device, dtype: np.dtype, descending: bool = False):
        self.device = device
        self.mode = KIND[np.dtype(dtype)] | (DESCENDING if descending else 0)
        self.local = local_size(device)
        pre = f"const WG: u32 = {WG}u;\nconst LOCAL: u32 = {self.local}u;\n" + kernel_source(("order_key", "radix_keys"))
        self.pipe_local = get_pipeline(device, "bitonic_sort", pre, "bitonic_local")
        self.pipe_global = get_pipeline(device, "bitonic_sort", pre, "bitonic_global")

    def dispatch_count(self, n: int) -> int:
        m = max(1, 1 << (n - 1).bit_length())
        levels = max(0, (m // self.local).bit_length() - 1)
        return 1 + levels * (levels + 3) // 2

    def record(self, p: Program, keys: Array, out: Array) -> None:
        n = keys.size
        if n == 0:
            return
        m = max(1, 1 << (n - 1).bit_length())  # padded to a power of two
        if 4 * m > self.device.max_binding_bytes:
            raise ValueError(f"bitonic sort of {n} keys (padded to {m}) needs one storage binding of {4 * m} bytes; "
                             f"this device binds at most {self.device.max_binding_bytes}: use method='radix'")
        unused = p.temp(16)  # for the binding a step does not use
        if m <= self.local:
            params = p.params(n, m, 1, 2, 0, m, LOAD_INPUT | STORE_OUTPUT, self.mode)
            p.dispatch("bitonic local", self.pipe_local, {0: params, 1: keys.buffer, 2: unused, 3: out.buffer}, 1)
            return
        work = p.temp(4 * m)
        tiles = m // self.local
        params = p.params(n, m, tiles, 2, 0, self.local, LOAD_INPUT, self.mode)
        p.dispatch("bitonic local", self.pipe_local, {0: params, 1: keys.buffer, 2: work, 3: unused}, tiles)
        k = 2 * self.local
        while k <= m:
            j = k // 2
            while j >= self.local:
                groups = m // 2 // WG
                params = p.params(n, m, groups, k, j, 0, 0, self.mode)
                p.dispatch("bitonic global", self.pipe_global, {0: params, 2: work}, groups)
                j //= 2
            last = k == m
            params = p.params(n, m, tiles, k, 0, k, STORE_OUTPUT if last else 0, self.mode)
            p.dispatch("bitonic local", self.pipe_local,
                       {0: params, 1: keys.buffer, 2: work, 3: out.buffer if last else unused}, tiles)
            k *= 2


def bitonic_sorter(device: Device, dtype, descending: bool = False) -> BitonicSorter:
    """The BitonicSorter of (dtype, direction) on `device`, looked up (program.lookup); its
    tile depends on the device's workgroup memory."""
    key = ("bitonic", np.dtype(dtype), bool(descending), device.max_workgroup_storage)
    return lookup(device, key, lambda: BitonicSorter(device, dtype, descending))
