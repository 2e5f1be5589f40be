"""Runs the measurements: for each primitive, dtype and size, check wgprim's result,
then time wgprim (GPU timestamps; end to end for small sizes) and every reference in
the same process, and compare with the copy bandwidth measured in the same run."""
from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field

import numpy as np

from wgprim.bench import timing
from wgprim.bench.cases import Primitive

END_TO_END_MAX = 1 << 20  # below this, host overhead dominates: report end-to-end too
NUMPY_CHECK_MAX = 1 << 24  # above this, check against CuPy when present (numpy is slow)


@dataclass
class Row:
    primitive: str
    n: int
    dtype: str
    ok: bool
    wgprim_ms: float | None
    end_to_end_ms: float | None = None
    refs: dict = field(default_factory=dict)  # reference name -> ms
    gbps: float | None = None
    copy_fraction: float | None = None  # achieved GB/s / copy GB/s
    steps: list = field(default_factory=list)  # (label, ms) of one call
    note: str = ""

    def ratios(self) -> dict:
        """reference ms / wgprim ms: above 1 means wgprim is faster."""
        if not self.wgprim_ms:
            return {}
        return {k: v / self.wgprim_ms for k, v in self.refs.items() if v}


def available_references(wanted: list[str]) -> dict:
    refs = {}
    for name in wanted:
        if name == "numpy":
            refs["numpy"] = np
        elif name in ("cupy", "torch"):
            try:
                module = __import__(name)
                if name == "torch" and not module.cuda.is_available():
                    raise ImportError("no CUDA device")
                if name == "cupy":
                    module.cuda.runtime.getDeviceCount()
                refs[name] = module
            except Exception as error:  # not installed or no CUDA: say so, go on
                print(f"note: {name} unavailable ({type(error).__name__}: {error})", file=sys.stderr)
        else:
            raise ValueError(f"unknown reference {name!r} (numpy, cupy, torch)")
    return refs


def copy_bandwidth(nbytes: int, repeat: int) -> float:
    """GB/s (bytes read + written) of a plain vec4 copy kernel on wgprim's device."""
    import wgprim
    from wgprim.program import Program, get_pipeline

    dev = wgprim.get_device()
    vecs = nbytes // 16
    src = wgprim.empty((vecs * 4,), np.uint32)
    dst = wgprim.empty((vecs * 4,), np.uint32)
    groups = -(-vecs // 1024)
    pipe = get_pipeline(dev, "copy", "", "copy", {"WG": 256})
    program = Program(dev, "copy", transient=False)
    program.dispatch("copy", pipe, {0: program.params(vecs, groups), 1: src.buffer, 2: dst.buffer}, groups)
    ms = timing.wgprim_gpu_ms(program.run, repeat)
    return 2 * vecs * 16 / (ms * 1e6) if ms else float("nan")


def _host(result):
    if isinstance(result, tuple):
        return tuple(_host(r) for r in result)
    return result.numpy() if hasattr(result, "numpy") else np.asarray(result)


def _to_numpy_any(result):
    if isinstance(result, tuple):
        return tuple(_to_numpy_any(r) for r in result)
    if hasattr(result, "get"):  # CuPy
        return result.get()
    if hasattr(result, "cpu"):  # torch
        return result.cpu().numpy()
    return np.asarray(result)


def measure(p: Primitive, n: int, dtype: str, refs: dict, repeat: int, copy_gbps: float, rng) -> Row:
    import wgprim

    inputs = p.make(rng, n, np.dtype(dtype))
    gpu_inputs = tuple(wgprim.asarray(a) for a in inputs)
    call = lambda: p.run(*gpu_inputs)
    same = p.same or (lambda g, r: np.array_equal(np.asarray(g), np.asarray(r)) if not isinstance(r, tuple)
                      else all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(g, r)))
    got = _host(call())
    # The correctness oracle: numpy, or CuPy for the largest sizes (numpy takes minutes).
    oracle = "numpy"
    if n > NUMPY_CHECK_MAX and "cupy" in refs and p.cupy is not None and p.same is None:
        cp = refs["cupy"]
        expected = _to_numpy_any(p.cupy(cp, *[cp.asarray(a) for a in inputs]))
        oracle = "cupy"
    else:
        expected = p.numpy(*inputs)
    ok = bool(same(got, expected))
    row = Row(p.name, n, dtype, ok, None, note=f"checked against {oracle}")
    if not ok:
        return row
    row.wgprim_ms = timing.wgprim_gpu_ms(call, repeat)
    row.steps = timing.wgprim_steps(call)
    if n <= END_TO_END_MAX:
        row.end_to_end_ms = timing.end_to_end_ms(call, _host, repeat)
    for name, module in refs.items():
        if name == "numpy":
            if n <= NUMPY_CHECK_MAX:
                row.refs["numpy"] = timing.host_ms(lambda: p.numpy(*inputs), repeat)
        elif name == "cupy" and p.cupy is not None:
            cp_inputs = [module.asarray(a) for a in inputs]
            time = timing.cuda_ms if "torch" in refs else timing.cupy_ms
            row.refs["cupy"] = time(lambda: p.cupy(module, *cp_inputs), repeat)
        elif name == "torch" and p.torch is not None:
            # torch has little uint32 support: time the same bits as int32 (same width, same work).
            t_inputs = [module.from_numpy(a.view(np.int32) if a.dtype == np.uint32 else a).cuda() for a in inputs]
            row.refs["torch"] = timing.cuda_ms(lambda: p.torch(module, *t_inputs), repeat)
    itemsize = np.dtype(dtype).itemsize
    if row.wgprim_ms:
        row.gbps = p.bytes(n, itemsize) / (row.wgprim_ms * 1e6)
        row.copy_fraction = row.gbps / copy_gbps if copy_gbps == copy_gbps else None
    return row


def as_dict(row: Row) -> dict:
    d = asdict(row)
    d["ratios"] = row.ratios()
    return d
