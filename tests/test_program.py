"""Program, the one door to the GPU: copy steps between passes, host reads and writes,
label scopes, and recorders composed into one Program."""
import numpy as np
import pytest

import wgprim
from wgprim.device import binding_limit
from wgprim.ops.scan import ScanRecorder
from wgprim.profiling import profile
from wgprim.program import Copy, Program


def u32(device, values):
    return wgprim.asarray(np.asarray(values, np.uint32))


def test_write_then_read(device):
    p = Program(device, "io", transient=False)
    buf = p.temp(64)
    data = np.arange(16, dtype=np.uint32) * 7
    p.write(buf, data)
    np.testing.assert_array_equal(p.read(buf, 0, 64, np.uint32), data)
    np.testing.assert_array_equal(p.read(buf, 16, 8, np.uint32), data[4:6])
    p.write(buf, np.uint32([99]), offset=4)
    assert p.read(buf, 4, 4, np.uint32)[0] == 99
    p.release()


def test_copy_steps_run_in_order_with_dispatches(device, rng):
    # scan -> copy the result -> scan the copy again: the copy sits between two passes and
    # sees the first scan's output; the second scan sees the copy.
    x = rng.integers(0, 10, 10_000).astype(np.uint32)
    src = wgprim.asarray(x)
    once, copied, twice = (wgprim.empty((x.size,), np.uint32) for _ in range(3))
    p = Program(device, "scan, copy, scan")
    rec = ScanRecorder(device, np.dtype(np.uint32), "sum")
    rec.record(p, src, once, exclusive=False)
    p.copy(once.buffer, 0, copied.buffer, 0, 4 * x.size)
    rec.record(p, copied, twice, exclusive=False)
    assert any(isinstance(s, Copy) for s in p.steps)
    p.run()
    first = np.cumsum(x, dtype=np.uint32)
    np.testing.assert_array_equal(copied.numpy(), first)
    np.testing.assert_array_equal(twice.numpy(), np.cumsum(first, dtype=np.uint32))


def test_copy_with_offsets_and_empty_copy(device):
    a = u32(device, np.arange(8))
    b = u32(device, np.zeros(8))
    p = Program(device, "copies")
    p.copy(a.buffer, 8, b.buffer, 16, 12)  # a[2:5] -> b[4:7]
    p.copy(a.buffer, 0, b.buffer, 0, 0)  # nothing: no step
    assert len(p.steps) == 1
    p.run()
    np.testing.assert_array_equal(b.numpy(), [0, 0, 0, 0, 2, 3, 4, 0])


def test_scopes_name_the_steps(device):
    x = wgprim.asarray(np.ones(100_000, np.uint32))
    out = wgprim.empty((x.size,), np.uint32)
    p = Program(device, "scoped")
    rec = ScanRecorder(device, np.dtype(np.uint32), "sum")
    with p.scope("outer"):
        with p.scope("inner"):
            rec.record(p, x, out, exclusive=True)
    rec.record(p, x, out, exclusive=True)
    scoped = p.steps[: len(p.steps) // 2]
    assert {s.label for s in scoped} == {"outer"}  # the outermost scope names them
    assert all(s.path[:2] == ("outer", "inner") and s.path[2].startswith("scan") for s in scoped)
    assert all(s.label.startswith("scan") and s.path == (s.label,) for s in p.steps[len(p.steps) // 2:])
    assert p.scopes == []


def test_profile_with_copies_reports_each_dispatch(device):
    if not device.has_timestamps:
        pytest.skip("adapter has no timestamp queries")
    x = wgprim.asarray(np.ones(5000, np.uint32))
    out, copy = wgprim.empty((5000,), np.uint32), wgprim.empty((5000,), np.uint32)
    p = Program(device, "profiled")
    rec = ScanRecorder(device, np.dtype(np.uint32), "sum")
    with p.scope("first scan"):
        rec.record(p, x, out, exclusive=False)
    p.copy(out.buffer, 0, copy.buffer, 0, 4 * 5000)
    with p.scope("second scan"):
        rec.record(p, copy, out, exclusive=False)
    times = p.run(profile=True)
    dispatches = [s.label for s in p.steps if not isinstance(s, Copy)]
    assert [t.label for t in times] == dispatches
    assert all(t.ms >= 0 for t in times)
    np.testing.assert_array_equal(out.numpy(), np.cumsum(np.arange(1, 5001), dtype=np.uint32))


def test_sort_profile_labels_come_from_scopes(device):
    # the radix sort names its scan steps with a scope (no relabelling after recording)
    from wgprim.api.sort import SortPlan

    plan = SortPlan(50_000, np.uint32)
    keys = np.random.default_rng(5).integers(0, 2**32, 50_000, dtype=np.uint64).astype(np.uint32)
    with profile() as times:
        got = plan(keys)
    np.testing.assert_array_equal(got.numpy(), np.sort(keys))
    if device.has_timestamps:
        assert {t.label for t in times} == {"radix count", "radix scan", "radix scatter"}


def test_compaction_of_several_chunks_gathers_through_program(device, rng):
    # inputs larger than one binding: pieces copied by Program.copy into one result
    n = 50_003
    x = rng.standard_normal(n).astype(np.float32)
    m = rng.random(n) < 0.3
    with binding_limit(16 * 1024):
        got = wgprim.compact(x, m).numpy()
        with wgprim.batch():
            queued = wgprim.compact(x, ~m)
    np.testing.assert_array_equal(got, x[m])
    np.testing.assert_array_equal(queued.numpy(), x[~m])


def test_copies_in_a_batch_and_reads_that_flush_it(device):
    # a copy step queues in a batch like a dispatch; Program.read flushes the batch first,
    # so the value read is the one computed
    a = u32(device, [5, 6, 7, 8])
    b = u32(device, [0, 0, 0, 0])
    c = u32(device, [0, 0, 0, 0])
    with wgprim.batch():
        p = Program(device, "queued copy")
        p.copy(a.buffer, 0, b.buffer, 0, 16)
        p.run()
        np.testing.assert_array_equal(Program(device, "reader").read(b.buffer, 0, 16, np.uint32), [5, 6, 7, 8])
        q = Program(device, "queued copy 2")
        q.copy(b.buffer, 4, c.buffer, 0, 12)
        q.run()
    np.testing.assert_array_equal(c.numpy(), [6, 7, 8, 0])


def test_design_doc_snippets_run():
    # the Python examples of docs/design.md run as written
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/design.md", "exec"), {})
