"""Helpers shared by the primitive families: input conversion and binding chunks."""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from wgprim.array import Array, asarray, check_dtype, native_byte_order, refuse_masked
from wgprim.device import Device, check_current

# Indices and offsets inside kernels are u32.
MAX_ELEMENTS = 2**32 - 1


def as_input(x, allowed=None) -> Array:
    """`x` as an Array (uploading numpy data), with a dtype this primitive accepts."""
    if isinstance(x, Array):
        check_current(x.device)
        check_dtype(x.dtype, x.device, allowed)
        arr = x
    else:
        refuse_masked(x)
        host = native_byte_order(np.asarray(x))
        check_dtype(host.dtype, None, allowed)
        arr = asarray(host)
    if arr.size > MAX_ELEMENTS:
        raise ValueError(f"wgprim handles at most {MAX_ELEMENTS} elements per array (u32 indices), got {arr.size}")
    return arr


def check_out(out: Array, shape: tuple, dtype, inputs: tuple = ()) -> Array:
    """Validate a caller's `out=` Array: its shape and dtype must be the result's, and it
    must not share a buffer with an input (a dispatch cannot read and write one buffer)."""
    if not isinstance(out, Array):
        raise TypeError(f"out must be a wgprim.Array, not {type(out).__name__}")
    check_current(out.device, "out")
    for a in inputs:
        if a.device is not out.device:
            raise ValueError(f"out lives on {out.device.name} but an input on {a.device.name}: "
                             "every Array of one call must be on the same device")
    if out.size != int(np.prod(shape, dtype=np.int64)) or out.dtype != np.dtype(dtype):
        raise ValueError(f"out must hold {tuple(shape)} of {np.dtype(dtype)}, got {out.shape} of {out.dtype}")
    if any(out.buffer is a.buffer for a in inputs):
        raise ValueError("out must not be an input (or share its buffer): pass another Array")
    if out.block is not None:
        out.block.staged = None  # about to be written: a staged copy of its old bytes is stale
    return out


@dataclass(frozen=True)
class Chunk:
    """A window of an array small enough for one storage binding."""

    start: int  # first element
    count: int  # elements

    def view(self, array: Array) -> dict:
        """The binding resource for this window of `array` (through to the buffer's end for
        the last window, so whole-vec4 reads of the tail stay in bounds)."""
        offset = self.start * array.itemsize
        end = min(array.buffer.size, -(-(self.start + self.count) * array.itemsize // 16) * 16)
        return {"buffer": array.buffer, "offset": offset, "size": end - offset}


def chunks(n: int, itemsize: int, tile: int, device: Device, max_tiles: int | None = None) -> list[Chunk]:
    """Split n elements into windows of whole tiles that each fit one storage binding (and
    hold at most `max_tiles` tiles, where given)."""
    per_binding = (device.max_binding_bytes // (tile * itemsize)) * tile
    if max_tiles is not None:
        per_binding = min(per_binding, max(1, int(max_tiles)) * tile)
    # Each window starts at a multiple of the tile, which keeps offsets aligned for binding.
    assert (per_binding * itemsize) % device.storage_offset_alignment == 0
    if per_binding <= 0:
        raise ValueError(f"the storage binding limit ({device.max_binding_bytes} bytes) is smaller than one tile")
    return [Chunk(s, min(per_binding, n - s)) for s in range(0, n, per_binding)]


def check_count(name: str, value) -> int:
    """A size argument (a plan's n) as numpy reads one: an integer, never a float, a bool
    or a string coerced by int() (TypeError, as numpy's)."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {value!r}") from None


def check_flag(name: str, value) -> bool:
    """`value` of a True/False option, refused unless it is a bool (numpy's too): a truthy
    string such as "False" must never switch an option on."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {value!r}")
    return bool(value)

