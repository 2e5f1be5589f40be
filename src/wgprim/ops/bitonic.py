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
Keys only, returned as the input's own bits. The network is not stable: where equal keys
may differ in bits (float32: -0.0 and +0.0, NaN payloads) it sorts (key, position) pairs,
which makes it stable (twice the bytes per key: half the keys per workgroup); for integer
keys equal keys look alike, so it sorts the keys alone.
"""
from __future__ import annotations

import numpy as np

from wgprim.array import Array
from wgprim.device import Device
from wgprim.ops.radix_sort import DESCENDING, KIND
from wgprim.caches import lookup
from wgprim.pipelines import get_pipeline, kernel_source
from wgprim.program import Program

WG = 256
LOAD_INPUT, STORE_OUTPUT = 1, 2


# The network's element (kernels/bitonic_sort.wgsl): a key's order key, or (order key,
# position) where equal keys may differ in bits; elem_bits gives the input's bits back.
_KEYS = """alias Elem = u32;
fn elem_load(i: u32) -> Elem { return to_radix(src[i], params.mode); }
fn elem_pad() -> Elem { return 0xffffffffu; }
fn elem_after(a: Elem, b: Elem) -> bool { return a > b; }
fn elem_bits(e: Elem) -> u32 { return from_radix(e, params.mode); }
"""
_STABLE = """alias Elem = vec2<u32>;
fn elem_load(i: u32) -> Elem { return vec2<u32>(to_radix(src[i], params.mode), i); }
fn elem_pad() -> Elem { return vec2<u32>(0xffffffffu, 0xffffffffu); }
fn elem_after(a: Elem, b: Elem) -> bool { return a.x > b.x || (a.x == b.x && a.y > b.y); }
fn elem_bits(e: Elem) -> u32 { return src[e.y]; }
"""


def local_size(device: Device, elem_bytes: int = 4) -> int:
    """Elements per workgroup: 16 KiB of them (the WebGPU minimum of workgroup memory: 4096
    keys, or 2048 (key, position) pairs) or fewer."""
    local = 16384 // elem_bytes
    while elem_bytes * local > device.max_workgroup_storage:
        local //= 2
    return local


class BitonicSorter:
    """Pipelines for one (device, key dtype, direction); records sorts into Programs."""

    def __init__(self, device: Device, dtype: np.dtype, descending: bool = False):
        self.device = device
        self.mode = KIND[np.dtype(dtype)] | (DESCENDING if descending else 0)
        stable = np.dtype(dtype).kind == "f"  # equal keys that differ in bits keep their order
        self.elem_bytes = 8 if stable else 4
        self.local = local_size(device, self.elem_bytes)
        pre = (f"const WG: u32 = {WG}u;\nconst LOCAL: u32 = {self.local}u;\n" + kernel_source(("order_key", "radix_keys"))
               + (_STABLE if stable else _KEYS))
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
        if self.elem_bytes * m > self.device.max_binding_bytes:
            raise ValueError(f"bitonic sort of {n} keys (padded to {m}) needs one storage binding of "
                             f"{self.elem_bytes * m} bytes; "
                             f"this device binds at most {self.device.max_binding_bytes}: use method='radix'")
        unused = p.temp(16)  # for the binding a step does not use
        if m <= self.local:
            params = p.params(n, m, 1, 2, 0, m, LOAD_INPUT | STORE_OUTPUT, self.mode)
            p.dispatch("bitonic local", self.pipe_local, {0: params, 1: keys.buffer, 2: unused, 3: out.buffer}, 1)
            return
        work = p.temp(self.elem_bytes * m)
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
    """The BitonicSorter of (dtype, direction) on `device`, looked up (caches.lookup); its
    tile depends on the device's workgroup memory."""
    key = ("bitonic", np.dtype(dtype), bool(descending), device.max_workgroup_storage)
    return lookup(device, key, lambda: BitonicSorter(device, dtype, descending))
