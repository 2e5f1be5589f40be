"""Adapter and device choice, limits and optional features.

One process-wide `Device` is created lazily on first use. The adapter is the
high-performance one unless `WGPRIM_ADAPTER=<substring>` or `use_adapter(...)` names
another (matched against the adapter's summary, e.g. "llvmpipe", "NVIDIA", "OpenGL"), or
picks one by its index in `list_adapters()` (`WGPRIM_ADAPTER=1`, `use_adapter(1)`: one
process per GPU, as `wgprim.dask.gpu_cluster` starts them).
We ask for the adapter's own maxima for the limits that bound data size (the WebGPU
defaults allow only 128 MiB per storage binding) and for the optional features that
make kernels faster; every kernel also has a path that needs none of them.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import threading
import weakref
from dataclasses import dataclass, field

from wgprim import batching
from wgprim.errors import NO_ADAPTER_HELP, NoAdapterError, WgprimError
from wgprim.lru import LRU

# Limits raised to the adapter's maximum: they bound how much data one call can touch.
RAISED_LIMITS = (
    "max-storage-buffer-binding-size",
    "max-buffer-size",
    "max-compute-workgroup-storage-size",
    "max-compute-invocations-per-workgroup",
    "max-compute-workgroup-size-x",
    "max-storage-buffers-per-shader-stage",
    "max-compute-workgroups-per-dimension",
)

# Optional features, requested when offered.
OPTIONAL_FEATURES = ("subgroup", "shader-f16", "timestamp-query", "timestamp-query-inside-passes")

# Mesa's llvmpipe (lavapipe on Vulkan, llvmpipe on OpenGL: the default where there is no
# GPU) silently ends every loop of a shader invocation once that invocation has run 65,535
# loop iterations in all, summed over every loop it ran (gallivm's loop limiter). A kernel
# whose loop count can grow with the data or with the schedule bounds its work per
# dispatch where a cap is known (docs/design.md, "The loop cap").
LLVMPIPE_LOOP_CAP = 65_535


def _loop_cap(adapter) -> int | None:
    """The loop cap of `adapter`'s driver: WGPRIM_LOOP_CAP when set (0: none), else
    llvmpipe's, else None (no cap known)."""
    wanted = os.environ.get("WGPRIM_LOOP_CAP")
    if wanted is not None and wanted.strip():
        try:
            cap = int(wanted)
        except ValueError:
            raise ValueError(f"WGPRIM_LOOP_CAP must be a whole number of loop iterations (0: no cap), not {wanted!r}") from None
        if cap < 0:
            raise ValueError(f"WGPRIM_LOOP_CAP must be 0 or more, not {cap}")
        return cap or None
    info = getattr(adapter, "info", None) or {}
    names = " ".join(str(info.get(k, "")) for k in ("vendor", "device", "description")).lower()
    return LLVMPIPE_LOOP_CAP if "llvmpipe" in names else None


def _request_adapter_list():
    import wgpu

    return list(wgpu.gpu.enumerate_adapters_sync())


def list_adapters() -> list[str]:
    """Summaries of every adapter wgpu can see (backend included)."""
    return [a.summary for a in _request_adapter_list()]


@dataclass
class Device:
    """The adapter and device wgprim runs on, with what they allow."""

    def __reduce_ex__(self, protocol):
        raise TypeError("a wgprim Device is an open GPU device of this process and cannot be pickled or "
                        "copied: use wgprim.device.get_device() in the other process")


    adapter: object
    device: object
    features: frozenset
    limits: dict
    # Largest byte size bound to one storage binding. Starts at the device's limit; tests
    # lower it (see `binding_limit`) to exercise the chunked paths on small data.
    max_binding_bytes: int = 0
    # Set when use_adapter() replaced this device: its Arrays and plans are refused with
    # an error that names the fix instead of failing inside wgpu.
    retired: bool = False
    # Which device this process opened it as (1, 2, ...): names it in errors when two
    # devices of one adapter meet in a call.
    number: int = 0
    # Loop iterations one invocation may run in all before the driver ends its loops
    # (None: no cap known; see LLVMPIPE_LOOP_CAP). Tests lower it (`loop_cap`) to exercise
    # the bounded paths on any adapter.
    loop_cap: int | None = None
    _caches: dict = field(default_factory=dict, repr=False)

    @property
    def summary(self) -> str:
        return self.adapter.summary

    @property
    def name(self) -> str:
        return f"device {self.number} ({self.summary})"

    @property
    def backend(self) -> str:
        return self.adapter.info.get("backend_type", "?")

    @property
    def has_subgroups(self) -> bool:
        return "subgroup" in self.features and not os.environ.get("WGPRIM_NO_SUBGROUPS")

    @property
    def has_f16(self) -> bool:
        return "shader-f16" in self.features

    @property
    def has_timestamps(self) -> bool:
        return "timestamp-query" in self.features

    @property
    def max_buffer_bytes(self) -> int:
        return int(self.limits["max-buffer-size"])

    @property
    def max_workgroup_storage(self) -> int:
        return int(self.limits["max-compute-workgroup-storage-size"])

    @property
    def max_groups_per_dim(self) -> int:
        return int(self.limits["max-compute-workgroups-per-dimension"])

    @property
    def storage_offset_alignment(self) -> int:
        return int(self.limits["min-storage-buffer-offset-alignment"])

    def cache(self, name: str) -> dict:
        """A per-device cache (pipelines, shader modules, pooled buffers)."""
        return self._caches.setdefault(name, {})

    def lru(self, name: str, capacity: int, on_evict=None) -> LRU:
        """A per-device bounded cache (lru.LRU), made on first use with `capacity`."""
        found = self._caches.get(name)
        if not isinstance(found, LRU):  # (a plain cache() of that name asked for first holds nothing yet)
            found = self._caches[name] = LRU(capacity, on_evict)
        return found


_current: Device | None = None
_numbers = itertools.count(1)


def _wrap(adapter, gpu_device) -> Device:
    """wgprim's Device for an open wgpu device, numbered in the order this process met it."""
    limits = dict(gpu_device.limits)
    return Device(adapter=adapter, device=gpu_device, features=frozenset(gpu_device.features), limits=limits,
                  max_binding_bytes=int(limits["max-storage-buffer-binding-size"]), number=next(_numbers),
                  loop_cap=_loop_cap(adapter))
_opened: "weakref.WeakValueDictionary[int, Device]" = weakref.WeakValueDictionary()
_wanted_adapter: str | int | None = None
# Opening the device happens once per process even when many threads start at once.
_lock = threading.RLock()
# Set in a child forked after the parent touched wgpu: wgpu-native's driver state does not
# survive fork (a fresh device in the child hangs in its first submit), so wgprim refuses.
_forked_after_gpu_use = False

FORK_HELP = (
    "wgprim cannot use the GPU in a process forked after its parent used the GPU (the "
    "driver's state does not survive fork; the child would hang). Start worker processes "
    "with the 'spawn' method: multiprocessing.get_context(\"spawn\"), or "
    "concurrent.futures.ProcessPoolExecutor(mp_context=multiprocessing.get_context(\"spawn\")); "
    "or use wgprim only in the child processes."
)


def _wgpu_touched() -> bool:
    """Whether this process created wgpu's native instance (or a wgprim device)."""
    if _current is not None:
        return True
    import sys

    api = sys.modules.get("wgpu.backends.wgpu_native._api")
    return getattr(api, "_the_instance", None) is not None


def _after_fork_in_child() -> None:
    global _forked_after_gpu_use, _lock
    _lock = threading.RLock()  # another thread of the parent may have held it at fork time
    if _wgpu_touched():
        _forked_after_gpu_use = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def check_process() -> None:
    """Raise a WgprimError naming the fix when this is a child forked from a GPU user."""
    if _forked_after_gpu_use:
        raise WgprimError(FORK_HELP)


def check_current(device: Device, what: str = "this Array") -> None:
    """Refuse an Array or plan made on a device that use_adapter() has since replaced."""
    check_process()
    if device.retired:
        now = _current.name if _current is not None else "another device"
        raise WgprimError(
            f"{what} belongs to {device.name}, which use_adapter() has since replaced by "
            f"{now}; Arrays and plans stay on the device they were made on. Make it again "
            f"after use_adapter() (for an Array: wgprim.asarray(a.numpy()) before switching, "
            f"or recompute it)."
        )


def _choose_adapter(name: str | int | None):
    import wgpu

    if isinstance(name, int) or (isinstance(name, str) and name.strip().isdigit()):
        adapters = _request_adapter_list()
        index = int(name)
        if not 0 <= index < len(adapters):
            seen = "\n  ".join(f"{i}: {a.summary}" for i, a in enumerate(adapters)) or "(none)"
            raise NoAdapterError(f"no adapter has index {index}. Adapters found:\n  {seen}")
        return adapters[index]
    if name:
        adapters = _request_adapter_list()
        matches = [a for a in adapters if name.lower() in a.summary.lower()]
        if not matches:
            seen = "\n  ".join(a.summary for a in adapters) or "(none)"
            raise NoAdapterError(f"no adapter matches {name!r}. Adapters found:\n  {seen}")
        return matches[0]
    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    if adapter is None:
        raise NoAdapterError(NO_ADAPTER_HELP)
    return adapter


def _open(name: str | int | None) -> Device:
    try:
        adapter = _choose_adapter(name)
    except NoAdapterError:
        raise
    except Exception as error:  # wgpu raises a generic error when no backend has an adapter
        raise NoAdapterError(f"{NO_ADAPTER_HELP}\n(wgpu said: {error})") from error
    features = [f for f in OPTIONAL_FEATURES if f in adapter.features]
    limits = {k: adapter.limits[k] for k in RAISED_LIMITS if k in adapter.limits}
    try:
        device = adapter.request_device_sync(required_features=features, required_limits=limits)
    except Exception as error:
        raise WgprimError(f"could not open a device on {adapter.summary}: {error}") from error
    opened = _wrap(adapter, device)
    _opened[id(device)] = opened
    return opened


def device_of(gpu_device) -> Device | None:
    """The wgprim Device wrapping a wgpu device (None if wgprim did not open it)."""
    found = _opened.get(id(gpu_device))
    return found if found is not None and found.device is gpu_device else None


def get_device() -> Device:
    """The device wgprim uses, opened on first call."""
    global _current
    check_process()
    device = _current
    if device is not None:
        return device
    with _lock:
        if _current is None:
            os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")  # silences a Mesa warning on headless Linux
            wanted = _wanted_adapter if _wanted_adapter is not None else os.environ.get("WGPRIM_ADAPTER") or None
            _current = _open(wanted)
        return _current


def use_adapter(name: str | int | None = None) -> Device:
    """Switch to the adapter whose summary contains `name`, or (an int) the one at that index
    in `list_adapters()`; None: the high-performance one.

    Arrays made on the previous device cannot be used afterwards.
    """
    global _current, _wanted_adapter
    if name is not None and (isinstance(name, bool) or not isinstance(name, (str, int))):
        raise TypeError(f"use_adapter takes a part of an adapter's name (str), its index in list_adapters() "
                        f"(int) or None, not {name!r}")
    check_process()
    _refuse_inside_batch("use_adapter()")
    with _lock:
        device = _open(name)
        if _current is not None and _current is not device:
            _current.retired = True
        _wanted_adapter, _current = name, device
    return device


def reset() -> None:
    """Forget the current device (after a device loss); the next call opens a new one."""
    global _current
    with _lock:
        _current = None


@contextlib.contextmanager
def binding_limit(nbytes: int):
    """Pretend one storage binding holds at most `nbytes` (for tests of the chunked paths)."""
    dev = get_device()
    if nbytes % 256:
        raise ValueError("binding limit must be a multiple of 256 bytes")
    saved = dev.max_binding_bytes
    dev.max_binding_bytes = min(saved, nbytes)
    try:
        yield dev
    finally:
        dev.max_binding_bytes = saved


@contextlib.contextmanager
def loop_cap(iterations: int | None):
    """Pretend the driver ends an invocation's loops after `iterations` loop iterations in
    all (None: no cap), for tests of the paths that bound their work per dispatch."""
    dev = get_device()
    if iterations is not None and iterations <= 0:
        raise ValueError("a loop cap must be a positive number of iterations, or None")
    saved = dev.loop_cap
    dev.loop_cap = iterations
    try:
        yield dev
    finally:
        dev.loop_cap = saved


# What wgprim needs of a device the user opens: WebGPU's default limits are enough for
# every kernel (16 KiB of workgroup memory, 256 invocations, 8 storage buffers per stage);
# larger limits only allow larger arrays. Optional features are used when present.
REQUIRED_LIMITS = {
    "max-compute-workgroup-storage-size": 16384,
    "max-compute-invocations-per-workgroup": 256,
    "max-compute-workgroup-size-x": 256,
    "max-storage-buffers-per-shader-stage": 8,
}


def use_device(gpu_device) -> Device:
    """Run wgprim on a `wgpu.GPUDevice` the caller already has (sharing its buffers: see
    `Array.from_buffer` and `Array.buffer`). Checks the limits wgprim needs; optional
    features (subgroups, f16, timestamps) are used when the device was opened with them.
    Arrays made on the previous device cannot be used afterwards."""
    global _current
    _check_gpu_device(gpu_device)
    _refuse_inside_batch("use_device()")
    limits = dict(gpu_device.limits)
    short = {k: (limits.get(k, 0), v) for k, v in REQUIRED_LIMITS.items() if limits.get(k, 0) < v}
    if short:
        said = ", ".join(f"{k} = {have} (needs {need})" for k, (have, need) in short.items())
        raise WgprimError(f"this device's limits are too small for wgprim: {said}")
    adapter = getattr(gpu_device, "adapter", None)
    check_process()
    with _lock:
        _current = _wrap(adapter, gpu_device)
        return _current


def _check_gpu_device(gpu_device) -> None:
    """TypeError unless `gpu_device` is a wgpu device (an adapter, None, a wgprim Device
    are the usual mistakes, each named)."""
    import wgpu

    if isinstance(gpu_device, wgpu.GPUDevice):
        return
    if isinstance(gpu_device, wgpu.GPUAdapter):
        hint = ": open one with adapter.request_device_sync(), or call wgprim.use_adapter() to let wgprim open it"
    elif isinstance(gpu_device, Device):
        hint = ": this is wgprim's own Device, already in use (its .device is the wgpu device)"
    else:
        hint = ""
    raise TypeError(f"use_device takes a wgpu.GPUDevice, not {type(gpu_device).__name__}{hint}")


def _refuse_inside_batch(what: str) -> None:
    """Switching devices while a batch() holds unsubmitted work would lose it: refused, and
    the batch stays usable."""
    thread = batching.open_batch_thread()
    if thread is not None:
        raise WgprimError(
            f"{what} inside an open wgprim.batch() (of thread {thread!r}): the work queued there runs on the "
            f"current device and is submitted when the block ends. Call {what} before the "
            "`with wgprim.batch():` block or after it; the batch is unchanged and still usable")
