"""Kernels as the GPU runs them: the WGSL text of kernel files (joined, after a preamble,
with the `// unroll` loops written out) and the compute pipelines made of it, cached per
device (shader module per text, pipeline per entry point and constants)."""
from __future__ import annotations

import re
import weakref
from functools import lru_cache
from pathlib import Path

from wgprim.device import Device
from wgprim.errors import explain_gpu_error
from wgprim.unroll import unroll

KERNEL_DIR = Path(__file__).parent / "kernels"


@lru_cache(maxsize=None)
def kernel_source(name: str | tuple) -> str:
    """The text of `kernels/<name>.wgsl` (of several files joined, for a tuple of names)."""
    if isinstance(name, tuple):
        return "\n".join(kernel_source(n) for n in name)
    return (KERNEL_DIR / f"{name}.wgsl").read_text()


def module_source(kernel: str | tuple, preamble: str) -> str:
    """The WGSL text compiled for kernel file(s) `kernel` after `preamble`: the two joined,
    with the loops marked `// unroll` written out (unroll.py)."""
    return unroll(preamble + "\n" + kernel_source(kernel))


# Compiled code kept per device (LRU), bounded by count and by the bytes of WGSL compiled
# (a pipeline counted at its module's text): past these, the least recently used is
# compiled again when next needed (every distinct Monoid, say, makes modules and pipelines
# of its own; each costs ~1-3 MB of host memory on lavapipe).
PIPELINES = 4096
MODULES = 2048
PIPELINE_SOURCE_BYTES = 512 << 20
MODULE_SOURCE_BYTES = 256 << 20


def get_pipeline(device: Device, kernel: str | tuple, preamble: str, entry: str, constants: dict | None = None):
    """A compute pipeline for `entry` of kernel file `kernel` (or of several files joined,
    e.g. a variant of a building block followed by the kernel that uses it), specialized
    by `preamble` (WGSL put before the files: type aliases and operator functions) and
    `constants` (pipeline-overridable constants). Cached per device."""
    constants = dict(sorted((constants or {}).items()))
    key = (kernel, preamble, entry, tuple(constants.items()))
    pipelines = device.lru("pipelines", PIPELINES)
    found = pipelines.get(key)
    if found is not None:
        return found
    modules = device.lru("modules", MODULES)
    pipelines.max_bytes, modules.max_bytes = PIPELINE_SOURCE_BYTES, MODULE_SOURCE_BYTES
    mkey = (kernel, preamble)
    source = module_source(kernel, preamble)
    try:
        module = modules.get(mkey)
        if module is None:
            module = modules.keep(mkey, device.device.create_shader_module(label=str(kernel), code=source), len(source))
        pipeline = device.device.create_compute_pipeline(
            label=f"{kernel}.{entry}",
            layout="auto",
            compute={"module": module, "entry_point": entry, "constants": constants},
        )
    except Exception as error:
        raise explain_gpu_error(error, f"building kernel {kernel}.{entry}") from error
    _writable(device)[pipeline] = frozenset(int(b) for b in _READ_WRITE.findall(source))
    return pipelines.keep(key, pipeline, len(source))


def _writable(device: Device) -> "weakref.WeakKeyDictionary":
    """pipeline -> the bindings it may write, for as long as the pipeline lives."""
    found = device.cache("writable").get("by pipeline")
    if found is None:
        found = device.cache("writable").setdefault("by pipeline", weakref.WeakKeyDictionary())
    return found


# The bindings a kernel may write: `var<storage, read_write>` (every kernel declares its
# inputs `read`). Exact-size buffers are copied back only where written, and a read from
# another thread is refused only where that thread's queued work writes.
_READ_WRITE = re.compile(r"@group\(0\)\s*@binding\((\d+)\)\s*var<storage\s*,\s*read_write>")


def writable_bindings(device: Device, pipeline) -> frozenset | None:
    """The binding numbers `pipeline` may write (None: not made by get_pipeline, so any)."""
    return _writable(device).get(pipeline)


# Building blocks kept per device for the calls that look them up (lookup()).
