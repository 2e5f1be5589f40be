"""Moving one axis of an array larger than one storage binding to the end, and back
(ops/axis.py's move_axis, which sorts, partitions and top-k along a middle axis use).

The array is viewed as (outer, length, inner) and its moved form as (outer, inner,
length). Each window of work is one box of kernels/move_box.wgsl, whose input and output
are each one binding, bound from the aligned offset below the box's first element:
- blocks of whole outer slices, as many as a window holds;
- where one slice alone is too big, tiles of `rows` positions by `columns` columns of one
  slice, as many of each as keep the tile's span in the input and in the output within a
  window: about rows * inner elements in the (outer, length, inner) form and columns *
  length in the moved one, half a window each. (3, 10^8) float32 along axis 0 takes 54
  tiles on lavapipe (128 MiB a binding).
"""
from __future__ import annotations

from wgprim.array import Array
from wgprim.ops.axis_windows import view, window_bytes
from wgprim.pipelines import get_pipeline
from wgprim.program import Program

WG = 256


def record_move(p: Program, src: Array, dst: Array, outer: int, length: int, inner: int, back: bool) -> None:
    """dst = src with the axis moved last ((outer, length, inner) -> (outer, inner, length)),
    or back (the inverse), in windows of one binding."""
    size = src.itemsize
    room = window_bytes(p.device) // size
    pipe = get_pipeline(p.device, "move_box", "", "move_box", {"WG": WG, "WORDS": size // 4})
    # Strides of element (slice, position, column) in the two forms.
    natural = (length * inner, inner, 1)
    moved = (length * inner, 1, length)
    strides = (moved, natural) if back else (natural, moved)
    block = room // (length * inner)
    if block:
        for o in range(0, outer, block):
            _box(p, pipe, src, dst, strides, (o, 0, 0), (min(block, outer - o), length, inner))
        return
    rows = min(length, max(1, room // 2 // inner))
    columns = min(inner, max(1, room // 2 // length))
    for o in range(outer):
        for l in range(0, length, rows):
            for c in range(0, inner, columns):
                _box(p, pipe, src, dst, strides, (o, l, c), (1, min(rows, length - l), min(columns, inner - c)))


def _box(p: Program, pipe, src: Array, dst: Array, strides, corner: tuple, extent: tuple) -> None:
    """Move the box of `extent` (slices, positions, columns) from `corner`."""
    (src_first, src_view), (dst_first, dst_view) = (_window(p, a, s, corner, extent) for a, s in zip((src, dst), strides))
    count = extent[0] * extent[1] * extent[2]
    groups = -(-count // WG)
    params = p.params(*extent, src_first, *strides[0], dst_first, *strides[1], groups)
    p.dispatch("move axis", pipe, {0: params, 1: src_view, 2: dst_view}, groups)


def _window(p: Program, array: Array, strides: tuple, corner: tuple, extent: tuple) -> tuple[int, dict]:
    """(the box's first element in its binding, the binding) of the box in `array`."""
    size = array.itemsize
    first = sum(i * s for i, s in zip(corner, strides))
    last = sum((i + n - 1) * s for i, n, s in zip(corner, extent, strides))
    align = p.device.storage_offset_alignment
    base = first * size // align * align
    return first - base // size, view(array.buffer, base, (last + 1) * size - base)
