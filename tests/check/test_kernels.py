"""Every kernel wgprim ships parses and passes `wgprim check` (run in CI: a new kernel that
breaks the rule fails the build): each file on its own, and each shader module as the
library compiles it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wgprim.check import check_source

KERNELS = sorted((Path(__file__).parents[2] / "src" / "wgprim" / "kernels").glob("*.wgsl"))


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_shipped_kernel_is_clean(path: Path):
    findings = check_source(path.read_text(encoding="utf-8"), str(path))
    assert findings == [], "\n".join(f.format() for f in findings)


# ---- every shader module the library compiles, as compiled --------------------------------
#
# The files above are fragments: the library compiles a preamble (type aliases, operator
# functions, constants of one specialization) followed by one or more files joined. Calls
# across files and what the preamble defines are only visible in that text. So: run small
# calls of every primitive (every operator and dtype), then check each module the device
# built. A new kernel reached by any primitive is checked without touching this file.

DTYPES = (np.uint32, np.int32, np.float32, np.float16)


def _small_calls(wgprim):
    """(label, thunk) for a small call of each primitive, every operator and dtype."""
    from wgprim.ops.operators import ARG_OPS, BUILTIN

    rng = np.random.default_rng(13)
    calls = []
    for dt in DTYPES:
        x = (rng.random(777) * 50).astype(dt) if np.dtype(dt).kind == "f" else \
            rng.integers(0, 50, 777).astype(dt)
        for op in sorted(BUILTIN) + sorted(ARG_OPS):
            calls.append((f"reduce {op} {np.dtype(dt)}", lambda x=x, op=op: wgprim.reduce(x, op)))
        for op in sorted(BUILTIN):
            for exclusive in (False, True):
                calls.append((f"scan {op} {np.dtype(dt)}",
                              lambda x=x, op=op, e=exclusive: wgprim.scan(x, op, exclusive=e)))
        for method in ("radix", "bitonic"):
            for desc in (False, True):
                calls.append((f"sort {method} {np.dtype(dt)}",
                              lambda x=x, m=method, d=desc: wgprim.sort(x, descending=d, method=m)))
        calls.append((f"argsort {np.dtype(dt)}", lambda x=x: wgprim.argsort(x)))
        calls.append((f"sort_pairs {np.dtype(dt)}",
                      lambda x=x: wgprim.sort_pairs(x, np.arange(x.size, dtype=np.uint32))))
        calls.append((f"histogram {np.dtype(dt)}", lambda x=x: wgprim.histogram(x, bins=7)))
        calls.append((f"histogram weighted {np.dtype(dt)}",
                      lambda x=x: wgprim.histogram(x, bins=300, weights=np.ones(x.size, np.float32))))
        calls.append((f"histogram edges {np.dtype(dt)}",
                      lambda x=x: wgprim.histogram(x, bins=np.array([0, 1, 5, 20, 49], dtype=np.float64))))
        calls.append((f"compact {np.dtype(dt)}", lambda x=x: wgprim.compact(x, x > x[0])))
        calls.append((f"nonzero {np.dtype(dt)}", lambda x=x: wgprim.nonzero(x)))
        calls.append((f"unique {np.dtype(dt)}", lambda x=x: wgprim.unique(x)))
        calls.append((f"unique bitmap {np.dtype(dt)}", lambda x=x: _unique_by_bitmap(wgprim, x)))
        calls.append((f"run_length_encode {np.dtype(dt)}",
                      lambda x=x: wgprim.run_length_encode(np.sort(x))))
        for method in ("tree", "atomic"):
            calls.append((f"min {method} {np.dtype(dt)}", lambda x=x, m=method: wgprim.min(x, method=m)))
            calls.append((f"max {method} {np.dtype(dt)}", lambda x=x, m=method: wgprim.max(x, method=m)))
    # 64-bit reductions and scans (kernels/int64.wgsl, packet_pairs.wgsl, the single pass's
    # four state words a value); operators a dtype does not take are refused, nothing compiled
    for dt in (np.uint64, np.int64, np.float64):
        x = rng.integers(0, 50, 777).astype(dt)
        for op in sorted(BUILTIN) + sorted(ARG_OPS):
            calls.append((f"reduce {op} {np.dtype(dt)}", lambda x=x, op=op: wgprim.reduce(x, op)))
            calls.append((f"reduce {op} {np.dtype(dt)} axis",
                          lambda x=x, op=op: wgprim.reduce(x.reshape(7, 111), op, axis=0)))
        for op in sorted(BUILTIN):
            calls.append((f"scan {op} {np.dtype(dt)}", lambda x=x, op=op: wgprim.scan(x, op)))
            calls.append((f"scan {op} {np.dtype(dt)} single-pass",
                          lambda x=x, op=op: wgprim.scan(np.resize(x, 9000), op, method="single-pass")))
    calls.append(("cumulative_sum", lambda: wgprim.cumulative_sum(np.arange(5, dtype=np.int32), include_initial=True)))
    # both ways compaction writes its tiles (SelectPolicy.emit: small inputs take the words
    # form by default), three phases and the append form, values and indices
    def compact_form(emit, mask, **kw):
        from wgprim.ops.select import SelectPolicy
        from wgprim.tuning import using

        with using(SelectPolicy, emit=emit):
            return wgprim.compact(mask.astype(np.float32), mask, **kw), wgprim.nonzero(mask, **kw)

    flags = rng.random(3000) < 0.5
    for emit in ("subgroup", "words"):
        for kw in ({"method": "three-phase"}, {"ordered": False}):
            calls.append((f"compact {emit} {kw}", lambda e=emit, kw=kw: compact_form(e, flags, **kw)))
    small = rng.integers(0, 9, 5000).astype(np.uint32)
    calls.append(("bincount", lambda: wgprim.bincount(small)))
    calls.append(("bincount weighted", lambda: wgprim.bincount(small, weights=np.ones(small.size, np.float32))))
    for dt in DTYPES + (np.uint64, np.int64, np.float64):  # searches, 64-bit histograms and compaction
        keys = np.sort(rng.integers(0, 50, 5000).astype(dt))
        for side in ("left", "right"):
            calls.append((f"searchsorted {side} {np.dtype(dt)}",
                          lambda k=keys, s=side: wgprim.searchsorted(k, k[::7], side=s)))
        calls.append((f"searchsorted mixed {np.dtype(dt)}", lambda k=keys: wgprim.searchsorted(k, [-1, 2.5, 2**40])))
        calls.append((f"compact {np.dtype(dt)}", lambda k=keys: wgprim.compact(k, k > 9)))
        if np.dtype(dt).itemsize == 8:
            calls.append((f"histogram {np.dtype(dt)}", lambda k=keys: wgprim.histogram(k, bins=7)))
            calls.append((f"histogram weighted {np.dtype(dt)}",
                          lambda k=keys: wgprim.histogram(k, bins=3000, weights=np.ones(k.size, np.float32))))
            if np.dtype(dt).kind != "f":
                calls.append((f"bincount {np.dtype(dt)}", lambda k=keys: wgprim.bincount(k)))
    calls.append(("scan large", lambda: wgprim.cumsum(np.ones(300_000, np.uint32))))
    calls.append(("sort large", lambda: wgprim.sort(rng.integers(0, 2**31, 70_000).astype(np.uint32))))
    # primitives this list does not know yet (added later): the usual call shapes
    known = {"reduce", "sum", "prod", "min", "max", "argmin", "argmax", "scan", "cumsum", "sort",
             "argsort", "sort_pairs", "histogram", "bincount", "compact", "nonzero", "unique",
             "run_length_encode", "searchsorted"}
    x = rng.integers(0, 50, 777).astype(np.uint32)
    for name in getattr(wgprim, "__all__", []):
        fn = getattr(wgprim, name, None)
        if name in known or not callable(fn) or isinstance(fn, type) or not name.islower():
            continue
        if name in ("asarray", "empty", "get_device", "list_adapters", "use_adapter", "batch"):
            continue
        for args in ((x,), (x, 5), (x, np.repeat(np.arange(7, dtype=np.uint32), 111))):
            calls.append((f"guess {name}{len(args)}", lambda fn=fn, args=args: fn(*args)))
    return calls


def _unique_by_bitmap(wgprim, x):
    """unique of a small input by the presence bitmap (by default only large ones)."""
    from wgprim.ops.unique_dense import UniqueDensePolicy
    from wgprim.tuning import using

    with using(UniqueDensePolicy, dense_from=0):
        return wgprim.unique(x, return_counts=True)


@pytest.fixture(scope="module")
def compiled_modules():
    wgprim = pytest.importorskip("wgprim")
    try:
        device = wgprim.get_device()
    except Exception as error:  # no adapter at all: nothing is compiled here
        pytest.skip(f"no WebGPU adapter: {error}")
    refused = (TypeError, ValueError, NotImplementedError, wgprim.WgprimError)
    for label, call in _small_calls(wgprim):
        try:
            result = call()
            for part in result if isinstance(result, tuple) else (result,):
                if hasattr(part, "numpy"):
                    part.numpy()
        except Exception as error:
            # a combination the primitive refuses (nothing compiled for it); a guessed call
            # of a primitive this list does not know may fail any way it likes
            if not (label.startswith("guess ") or isinstance(error, refused)):
                raise
    from wgprim.pipelines import module_source

    texts = {}
    for kernel, preamble in list(device.cache("modules")):
        text = module_source(kernel, preamble)
        texts.setdefault(text, f"{kernel if isinstance(kernel, str) else '+'.join(kernel)}")
    return texts


def test_compiled_modules_cover_every_kernel_family(compiled_modules):
    names = set()
    for label in compiled_modules.values():
        names |= set(label.split("+"))
    for family in ("reduce", "scan", "radix_sort", "histogram", "select", "bitonic_sort", "atomic_minmax",
                   "unique_dense", "search", "gather"):
        assert any(n.startswith(family) for n in names), (family, sorted(names))


def test_every_compiled_module_is_clean(compiled_modules):
    problems = []
    for i, (text, label) in enumerate(compiled_modules.items()):
        findings = check_source(text, f"{label}[{i}]")
        problems += [f.format().splitlines()[0] for f in findings]
    assert problems == [], "\n".join(problems)
