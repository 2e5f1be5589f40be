"""Array: a typed GPU buffer (dtype, shape) that results live in until `.numpy()`.

Storage layout: u32, i32, f32 and f16 are stored as themselves; bool is stored one byte
per element (exactly numpy's layout) and read by kernels as packed u32 words; uint64,
int64 and float64, which WGSL has no types for, are stored as numpy stores them (8
little-endian bytes) and read by kernels as vec2<u32> (low word, high word). Every
buffer wgprim allocates has its size rounded up to 16 bytes so kernels may read whole vec4s
(a caller's buffer of another size, from `Array.from_buffer`, is bound through a padded
copy: program.py, "Exact-size buffers").

Buffers come from the device's memory pool (wgprim/memory.py) and go back to it when the
Array and every view of it are gone; `empty` gives whatever the pool's last user left,
`zeros` a zeroed buffer.
"""
from __future__ import annotations

import math
import operator
import sys

import numpy as np

from wgprim import transfer
from wgprim.device import Device, check_current, get_device
from wgprim.batching import check_not_pending
from wgprim.memory import buffer_size_for, check_alive, pool_of, watch_destroy

SUPPORTED_DTYPES = tuple(np.dtype(t) for t in (np.uint32, np.int32, np.float32, np.float16, np.bool_,
                                               np.uint64, np.int64, np.float64))
SUPPORTED_NAMES = ("uint32, int32, float32, float16 (where the device has shader-f16), bool (masks), "
                   "uint64, int64 and float64")
WIDE_DTYPES = tuple(np.dtype(t) for t in (np.uint64, np.int64, np.float64))

_STORAGE_USAGE = None


def _usage() -> int:
    global _STORAGE_USAGE
    if _STORAGE_USAGE is None:
        import wgpu

        _STORAGE_USAGE = int(wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST)
    return _STORAGE_USAGE


def shape_tuple(shape) -> tuple:
    """`shape` (an int, or a sequence of ints) as a tuple, read as numpy reads a shape: a
    bool, a float or a string raises numpy's TypeError (never an int() coercion)."""
    if isinstance(shape, (bool, np.bool_)) or not hasattr(shape, "__index__") and not hasattr(shape, "__iter__"):
        raise TypeError(f"expected a sequence of integers or a single integer, got {shape!r}")
    if isinstance(shape, str):
        raise TypeError("'str' object cannot be interpreted as an integer")
    try:
        return (operator.index(shape),)
    except TypeError:
        pass  # a sequence (or a 0-d integer array, which __index__ took above)
    dims = []
    for s in shape:
        if isinstance(s, (bool, np.bool_)):
            raise TypeError("an integer is required")
        dims.append(operator.index(s))
    return tuple(dims)


def check_dimensions(shape: tuple) -> tuple:
    """`shape` with no negative dimension (numpy's ValueError otherwise)."""
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed (shape {shape})")
    return shape


def device_argument(device) -> Device:
    """`device=` of a constructor: a wgprim Device, or None for the current one."""
    if device is None:
        return get_device()
    if not isinstance(device, Device):
        raise TypeError(f"device must be a wgprim Device (wgprim.get_device()) or None, not {device!r}; "
                        "to run on another adapter, call wgprim.use_adapter(...) first")
    return device


def refuse_masked(x) -> None:
    """A numpy masked array is refused: wgprim would silently compute over the masked
    elements too (np.asarray drops the mask)."""
    ma = sys.modules.get("numpy.ma")  # never imported: no masked array can exist
    if ma is not None and isinstance(x, ma.MaskedArray):
        raise TypeError("wgprim does not take masked arrays (numpy.ma): the mask would be ignored. "
                        "Pass x.compressed() (the unmasked elements, 1-D) or x.filled(value) "
                        "(masked elements replaced by value)")


def _opposite_byte_order(dt: np.dtype) -> bool:
    """A supported dtype in the other byte order than this machine's (e.g. '>f4')."""
    return not dt.isnative and dt.newbyteorder("=") in SUPPORTED_DTYPES


def check_dtype(dtype, device: Device | None = None, allowed=None) -> np.dtype:
    """Return `dtype` as a numpy dtype if wgprim (and this call) supports it, else TypeError."""
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    if allowed is not None and dt in allowed and dt.isnative and dt != np.float16:  # the common case, quickly
        return dt
    if _opposite_byte_order(dt):
        raise TypeError(
            f"dtype {dt.str} has the opposite byte order of this machine; GPU buffers hold "
            f"native byte order: convert first, e.g. x.astype(x.dtype.newbyteorder('='))"
        )
    allowed = SUPPORTED_DTYPES if allowed is None else tuple(np.dtype(a) for a in allowed)
    if dt not in allowed:
        names = ", ".join(str(a) for a in allowed) if allowed != SUPPORTED_DTYPES else SUPPORTED_NAMES
        hint = ""
        if dt in WIDE_DTYPES:
            hint = (f" (WGSL has no 64-bit types, and this function has no {dt} form; convert on the host, "
                    f"e.g. x.astype(np.{'float32' if dt.kind == 'f' else dt.name.replace('64', '32')}))")
        raise TypeError(f"dtype {dt} is not supported here; supported: {names}{hint}")
    if dt == np.float16 and not (device or get_device()).has_f16:
        raise TypeError("float16 needs the 'shader-f16' feature, which this adapter does not offer")
    return dt


class Array:
    """A 1-D or n-D array of a supported dtype held in a GPU storage buffer."""

    __slots__ = ("buffer", "dtype", "shape", "size", "device", "block", "__weakref__")

    def __init__(self, buffer, dtype, shape, device: Device, block=None):
        self.buffer = buffer
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)
        self.size = math.prod(self.shape)
        self.device = device
        # The memory pool's lease on `buffer` (None: a buffer someone else owns): views
        # share it, and the buffer goes back to the pool when the last of them is gone.
        self.block = block

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d Array")
        return self.shape[0]

    def numpy(self) -> np.ndarray:
        """Copy the data back to the host (waits for the GPU work that produces it)."""
        from wgprim.program import flush_batch

        check_current(self.device)
        flush_batch(self.device)
        if self.size == 0:
            return np.zeros(self.shape, self.dtype)
        check_not_pending(self.device, (self.buffer,), "this Array")
        check_alive((self.buffer,))
        block = self.block
        staged = block.staged if block is not None else None
        if staged is not None:  # copied out by the submit that made it: one map
            block.staged = None  # one reader at a time (another thread reads the usual way)
            try:
                raw = np.frombuffer(transfer.map_staged(staged.buffer, self.nbytes), np.uint8)
            finally:
                if block.staged is None:
                    block.staged = staged
        else:
            # Whole words up to the 16-byte end, within the buffer (a caller's exact-size one).
            nbytes = min(buffer_size_for(self.nbytes), self.buffer.size)
            raw = transfer.read(self.device, self.buffer, 0, nbytes)
        return raw[: self.nbytes].view(self.dtype).reshape(self.shape)

    def copy(self) -> "Array":
        """A new Array holding a copy of the data, copied on the device (as ndarray.copy)."""
        from wgprim.program import Program

        out = empty(self.shape, self.dtype, self.device)
        if self.size:
            program = Program(self.device, label="copy")
            nbytes = min(buffer_size_for(self.nbytes), self.buffer.size, out.buffer.size)
            program.copy(self.buffer, 0, out.buffer, 0, nbytes)
            program.run()
        return out

    # As numpy's: copy.copy and copy.deepcopy copy the data. pickle takes a host copy and
    # uploads it again on load, to the device current there.
    def __copy__(self) -> "Array":
        return self.copy()

    def __deepcopy__(self, memo) -> "Array":
        return self.copy()

    def __reduce__(self):
        return asarray, (self.numpy(),)

    def item(self):
        """The single element as a Python scalar."""
        if self.size != 1:
            raise ValueError(f"item() needs an array of size 1, this one has {self.size}")
        return self.numpy().reshape(()).item()

    def reshape(self, *shape) -> "Array":
        shape = shape_tuple(shape[0] if len(shape) == 1 else shape)
        # A negative size is the one unknown dimension (numpy takes any negative as -1).
        shape = [-1 if s < 0 else s for s in shape]
        if shape.count(-1) > 1:
            raise ValueError(f"cannot reshape into shape {tuple(shape)}: can only specify one unknown dimension")
        if shape.count(-1) == 1:  # infer the one missing dimension, as numpy does
            known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            shape[shape.index(-1)] = self.size // known if known else 0
        if int(np.prod(shape, dtype=np.int64)) != self.size:
            raise ValueError(f"cannot reshape an Array of size {self.size} into shape {tuple(shape)}")
        return Array(self.buffer, self.dtype, shape, self.device, self.block)

    def alias(self, shape, dtype=None) -> "Array":
        """Another Array over the start of the same buffer (`shape` of `dtype`, no larger),
        sharing its lease on the memory pool: e.g. the kept part of a result sized for the
        worst case."""
        return Array(self.buffer, self.dtype if dtype is None else dtype, shape, self.device, self.block)

    def ravel(self) -> "Array":
        return Array(self.buffer, self.dtype, (self.size,), self.device, self.block)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    # Conversions and comparisons read the data (a sync with the GPU, as .numpy()) and
    # then behave exactly as numpy's on that data: `wgprim.sum(x) == 6.0` is a numpy bool,
    # bool() of a size-1 Array works, float() of a size-6 one raises numpy's TypeError.
    def __bool__(self):
        return bool(self.numpy())

    def __float__(self):
        return float(self.numpy())

    def __int__(self):
        return int(self.numpy())

    def __complex__(self):
        return complex(self.numpy())

    def __index__(self):
        return operator.index(self.numpy())

    def __eq__(self, other):
        return self.numpy() == _host(other)

    def __ne__(self, other):
        return self.numpy() != _host(other)

    def __lt__(self, other):
        return self.numpy() < _host(other)

    def __le__(self, other):
        return self.numpy() <= _host(other)

    def __gt__(self, other):
        return self.numpy() > _host(other)

    def __ge__(self, other):
        return self.numpy() >= _host(other)

    __hash__ = None  # compares by value, as numpy arrays (which are unhashable too)

    def __repr__(self) -> str:
        return f"wgprim.Array(shape={self.shape}, dtype={self.dtype})"

    @classmethod
    def from_buffer(cls, buffer, dtype, shape, device: Device | None = None) -> "Array":
        """Wrap a caller's `wgpu.GPUBuffer` (on the device given to `wgprim.use_device`)
        as an Array without a copy. Its usage must include STORAGE (and COPY_SRC for
        `.numpy()`); its size must hold `shape` of `dtype` in whole 4-byte words (a buffer
        made with `size=data.nbytes` does for 4- and 8-byte dtypes). The caller keeps the
        buffer alive (not destroyed) while wgprim uses it. Where the size is not a multiple
        of 16 bytes, each call copies the data into a padded temporary first (kernels read
        whole vec4s) and, for a result (`out=`), back: docs/interop.md."""
        import wgpu

        if not isinstance(buffer, wgpu.GPUBuffer):
            hint = " (for host data, use wgprim.asarray(x), which copies it to the GPU)" \
                if isinstance(buffer, np.ndarray) or hasattr(buffer, "__array__") else ""
            raise TypeError(f"buffer must be a wgpu.GPUBuffer, not {type(buffer).__name__}{hint}")
        device = device_argument(device)
        check_current(device, "the device asked for")
        dt = check_dtype(dtype, device)
        shape = check_dimensions(shape_tuple(shape))
        if getattr(buffer, "_device", device.device) is not device.device:
            raise ValueError(
                f"the buffer belongs to another wgpu device than wgprim's ({device.name}): call "
                "wgprim.use_device(your_device) first, so that wgprim runs on the device that made the buffer")
        usage = int(buffer.usage)
        missing = [name for name, flag in (("STORAGE", wgpu.BufferUsage.STORAGE),
                                           ("COPY_SRC", wgpu.BufferUsage.COPY_SRC)) if not usage & int(flag)]
        if missing:
            raise ValueError(f"the buffer's usage lacks {' | '.join(missing)}: wgprim binds it as a storage "
                             "buffer and copies results out of it (create it with "
                             "usage=STORAGE | COPY_SRC | COPY_DST)")
        nbytes = math.prod(shape) * dt.itemsize
        if buffer.size < nbytes:
            raise ValueError(f"the buffer holds {buffer.size} bytes; {shape} of {dt} needs {nbytes}")
        if buffer.size % 4:
            raise ValueError(f"the buffer holds {buffer.size} bytes, not a multiple of 4: GPU copies and storage "
                             f"bindings work in 4-byte words. Create it with size={-(-nbytes // 4) * 4} "
                             "(the data rounded up to 4 bytes)")
        watch_destroy(buffer)
        return cls(buffer, dt, shape, device)


def _host(value):
    """The other operand of a comparison, on the host."""
    return value.numpy() if isinstance(value, Array) else value


def empty(shape, dtype, device: Device | None = None) -> Array:
    """An uninitialized Array: its buffer comes from the memory pool and holds whatever
    its last user left (a new buffer is zero-filled, a reused one is not: see zeros)."""
    device = device_argument(device)
    dt = check_dtype(dtype, device)
    shape = check_dimensions(shape_tuple(shape))
    check_current(device, "the device asked for")
    nbytes = math.prod(shape) * dt.itemsize
    # The buffer is rounded up to 16 bytes: that size must fit too.
    if buffer_size_for(nbytes) > device.max_buffer_bytes:
        raise ValueError(
            f"{nbytes} bytes exceed this device's largest buffer ({device.max_buffer_bytes} bytes)"
        )
    block = pool_of(device).block(buffer_size_for(nbytes), _usage())
    return Array(block.buffer, dt, shape, device, block)


def zeros(shape, dtype, device: Device | None = None) -> Array:
    """An Array of zeros (the buffer zeroed on the queue before any later work)."""
    out = empty(shape, dtype, device)
    nbytes = buffer_size_for(out.nbytes)
    if nbytes <= 1 << 20:
        transfer.write(out.device, out.buffer, 0, np.zeros(nbytes, np.uint8))
    else:
        encoder = out.device.device.create_command_encoder()
        encoder.clear_buffer(out.buffer, 0, nbytes)
        out.device.device.queue.submit([encoder.finish()])
    return out


def native_byte_order(host: np.ndarray) -> np.ndarray:
    """`host` in this machine's byte order (a converted copy for e.g. big-endian '>f4' data:
    GPU buffers hold native values, and the data is copied to the GPU anyway)."""
    if _opposite_byte_order(host.dtype):
        return host.astype(host.dtype.newbyteorder("="))
    return host


def asarray(x, dtype=None, device: Device | None = None) -> Array:
    """An Array with the data of `x` (a numpy array, a sequence, or an Array, returned as is)."""
    if device is not None:
        device_argument(device)
    if isinstance(x, Array):
        if dtype is not None and np.dtype(dtype) != x.dtype:
            raise TypeError(f"Array has dtype {x.dtype}, not {np.dtype(dtype)}; convert on the host")
        return x
    refuse_masked(x)
    host = native_byte_order(np.asarray(x, dtype=dtype))
    out = empty(host.shape, host.dtype, device)
    if host.size:
        data = np.ascontiguousarray(host).view(np.uint8).ravel()
        # Up to the buffer's 16-byte end: kernels read whole vec4s, and a pooled buffer's
        # tail holds what its last user left (queue writes need a multiple of 4 bytes anyway).
        pad = buffer_size_for(data.size) - data.size
        if pad:
            data = np.concatenate([data, np.zeros(pad, np.uint8)])
        transfer.write(out.device, out.buffer, 0, data)
    return out
