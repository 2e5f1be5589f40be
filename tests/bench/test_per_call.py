"""What a user feels: call_ms (N one-shot calls back to back, one sync) and latency_ms
(one call, its first element on the host), for wgprim on this machine's GPU and for CUDA
references through small stand-ins; the JSON those rows write, its readers, and the
per-call tables. No speed thresholds: only that the figures exist, are positive and
land where docs/bench.md says."""
import json
import runpy
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import wgprim
from wgprim.bench import agree, harness, results, timing
from wgprim.bench.cases import CALLS_GRID_PRIMITIVES, CALLS_GRID_SIZES, calls_grid
from wgprim.cli import main
from wgprim.registry import BY_NAME

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).with_name("calls-fixture.json")
QUICK = dict(rounds=1, round_ms=1, warmup_ms=1, warmup_max_ms=100, calls=12, calls_budget_ms=50, calls_min=10,
             call_rounds=2, latency_runs=5)


# -- stand-ins for CuPy and PyTorch -----------------------------------------------------------
class FakeArray:
    """Enough of a CuPy array / torch tensor: reshape, indexing, .item(), .cuda()."""

    def __init__(self, a, lib):
        self.a, self.lib = np.asarray(a), lib

    @property
    def ndim(self):
        return self.a.ndim

    def reshape(self, *shape):
        return FakeArray(self.a.reshape(*shape), self.lib)

    def __len__(self):
        return len(self.a)

    def __getitem__(self, index):
        return FakeArray(self.a[index.a if isinstance(index, FakeArray) else index], self.lib)

    def item(self):
        self.lib.items += 1
        if self.lib.fail_item:
            raise RuntimeError("item failed")
        return self.a.item()

    def cuda(self):
        return self

    def get(self):
        return self.a


class FakeEvent:
    def __init__(self, enable_timing=True):
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3


class FakeLib(SimpleNamespace):
    """A CUDA library that runs on numpy: counts the syncs and reads a test makes."""

    def __init__(self, name, fail_item=False, fail_calls=False):
        super().__init__(name=name, syncs=0, items=0, fail_item=fail_item, fail_calls=fail_calls)

        def sync():
            self.syncs += 1

        self.cuda = SimpleNamespace(Event=FakeEvent, synchronize=sync, empty_cache=lambda: None,
                                    is_available=lambda: True, get_elapsed_time=lambda a, b: a.elapsed_time(b),
                                    Device=lambda: SimpleNamespace(synchronize=sync))

    def asarray(self, a):
        return FakeArray(a, self)

    def from_numpy(self, a):
        return FakeArray(a, self)

    def get_default_memory_pool(self):
        return SimpleNamespace(free_all_blocks=lambda: None)

    def sum(self, x):
        if self.fail_calls:
            raise MemoryError("out of memory (stand-in)")
        return FakeArray(x.a.sum(dtype=np.float64), self)

    def sort(self, x):
        return FakeArray(np.sort(x.a), self), FakeArray(np.argsort(x.a, kind="stable"), self)


# -- the timer ------------------------------------------------------------------------------------
def test_n_calls_back_to_back_then_one_sync():
    made, synced = [], []
    timer = timing.PerCallTimer(lambda: made.append(1) or len(made), synced.append, synced.append, warmup=3)
    assert timer.choose(calls=40, budget_ms=1e6, least=10) == 40
    assert len(made) == 3 and synced == [3]  # the warm-up: 3 calls, one sync of the last
    ms = timer.calls_round()
    assert len(made) == 43 and synced == [3, 43] and ms > 0  # 40 calls, one sync of the last result
    timer.latency_run()
    assert synced[-1] == 44
    result = timer.result()
    assert result.calls == 40 and result.call_ms == ms and result.latency_ms > 0 and result.error is None


def test_n_is_capped_by_the_budget_but_never_below_the_least():
    slow = timing.PerCallTimer(lambda: time.sleep(0.002), lambda r: None, lambda r: None, warmup=2)
    assert slow.choose(calls=100, budget_ms=20, least=4) in range(4, 11)  # ~2 ms a call: <= 10 in 20 ms
    assert slow.choose(calls=100, budget_ms=1, least=4) == 4


def test_wgprim_per_call_on_this_gpu_gives_positive_figures(device, rng):
    x = wgprim.asarray(rng.standard_normal(1 << 12).astype(np.float32))
    m = wgprim.asarray(rng.random(1 << 12) < 0.5)
    calls = {"scalar": lambda: wgprim.sum(x), "array": lambda: wgprim.cumsum(x),
             "tuple": lambda: wgprim.topk(x, 8), "counted": lambda: wgprim.compact(x, m),
             "histogram": lambda: wgprim.histogram(x, bins=16, range=(-4.0, 4.0))}
    out = timing.per_call({k: timing.wgprim_per_call(c) for k, c in calls.items()}, rounds=2, calls=10,
                          budget_ms=10, least=10, latency_runs=3)
    for name, r in out.items():
        assert r.error is None, name
        assert r.calls == 10 and r.call_ms > 0 and r.latency_ms > 0 and len(r.call_rounds_ms) == 2, name
        assert len(r.latency_runs_ms) == 3
    # The read is the first element: the 0-d result's value, else its first 4 bytes.
    assert timing.wgprim_first(wgprim.sum(x)) == wgprim.sum(x).item()
    first = timing.wgprim_first(wgprim.cumsum(x)).view(np.float32)[0]
    assert first == wgprim.cumsum(x).numpy()[0]


def test_cuda_first_reads_a_scalar_or_the_first_element():
    lib = FakeLib("torch")
    sync = timing.cuda_sync("torch", lib)
    assert timing.cuda_first(FakeArray(np.float32(2.5), lib), sync) == 2.5
    assert timing.cuda_first(FakeArray(np.arange(3, 9).reshape(2, 3), lib), sync) == 3
    assert timing.cuda_first((FakeArray([7, 8], lib), FakeArray([0, 1], lib)), sync) == 7
    assert lib.syncs == 0 and lib.items == 3
    timing.cuda_first(FakeArray(np.zeros(0), lib), sync)  # empty: the sync instead
    assert lib.syncs == 1


# -- the row -------------------------------------------------------------------------------------
def test_a_row_times_every_side_per_call_and_writes_refs_as_the_issue_says(device):
    refs = {"torch": FakeLib("torch"), "cupy": FakeLib("cupy"), "numpy": np}
    row = harness.measure(BY_NAME["sum"], 1 << 10, "float32", refs, harness.Protocol(**QUICK), copy_gbps=None)
    assert row.ok and row.call_ms > 0 and row.latency_ms > 0 and row.wgprim_ms > 0
    for lib in ("torch", "cupy"):
        assert row.refs[lib] > 0 and row.ref_calls[lib]["call_ms"] > 0 and row.ref_calls[lib]["latency_ms"] > 0
        assert row.call_stats[lib]["calls"] == 12 and len(row.call_stats[lib]["call_rounds_ms"]) == 2
        assert refs[lib].items >= 5  # every latency run read the scalar
        assert refs[lib].syncs >= 3  # the per-call warm-up and each round ended by the device's synchronize
    assert row.call_over_gpu() == row.call_ms / row.wgprim_ms
    assert set(row.call_ratios()) == {"torch", "cupy"} and set(row.ratios()) == {"torch", "cupy", "numpy"}
    d = json.loads(json.dumps(harness.as_dict(row)))
    assert set(d["refs"]) == {"torch", "cupy", "numpy"}
    for lib in ("torch", "cupy"):
        assert set(d["refs"][lib]) == {"ms", "call_ms", "latency_ms"}
        assert d["refs"][lib]["ms"] == row.refs[lib] and d["refs"][lib]["call_ms"] == row.ref_calls[lib]["call_ms"]
    assert d["refs"]["numpy"] == {"ms": row.refs["numpy"], "call_ms": None, "latency_ms": None}
    assert d["call_ms"] == row.call_ms and d["latency_ms"] == row.latency_ms and d["wgprim_ms"] == row.wgprim_ms
    assert d["ratios"]["torch"] == row.refs["torch"] / row.wgprim_ms
    assert d["call_ratios"]["cupy"] == row.ref_calls["cupy"]["call_ms"] / row.call_ms
    assert "ref_calls" not in d and d["call_stats"]["wgprim"]["call_ms"] == row.call_ms
    assert results.ref_ms(d) == row.refs  # the GPU medians read back as schema 2 held them


def test_a_side_without_the_function_or_that_fails_is_left_out_with_the_reason(device):
    # topk has no CuPy function; the stand-in torch's latency read fails; nothing else does.
    refs = {"cupy": FakeLib("cupy"), "torch": FakeLib("torch", fail_item=True)}
    entry = BY_NAME["sort"]
    row = harness.measure(entry, 1 << 10, "uint32", refs, harness.Protocol(**QUICK), None)
    assert row.ok and row.call_ms > 0
    assert row.ref_calls["torch"]["call_ms"] > 0 and row.ref_calls["torch"]["latency_ms"] is None
    assert "torch: per-call timing failed" in row.flags and "item failed" in row.absent["torch per call"]
    assert row.ref_calls["cupy"]["latency_ms"] > 0
    topk = harness.measure(BY_NAME["topk"], 1 << 10, "float32", {"cupy": FakeLib("cupy")}, harness.Protocol(**QUICK),
                           None)
    assert topk.ok and "cupy" not in topk.refs and topk.absent == {"cupy": "no cupy function for topk"}
    assert "cupy: no cupy function for topk" in topk.note
    # A reference that cannot run at this size (out of memory): left out, the row goes on.
    row = harness.measure(BY_NAME["sum"], 1 << 10, "float32", {"torch": FakeLib("torch", fail_calls=True)},
                          harness.Protocol(**QUICK), None)
    assert row.ok and row.call_ms > 0 and "torch" not in row.refs and "torch" not in row.ref_calls
    assert "out of memory" in row.absent["torch"] and "torch: failed" in row.note


def test_no_per_call_leaves_the_fields_out(device):
    row = harness.measure(BY_NAME["sum"], 1 << 10, "float32", {}, harness.Protocol(**QUICK, per_call=False), None)
    assert row.ok and row.call_ms is None and row.latency_ms is None and not row.call_stats
    assert harness.as_dict(row)["call_over_gpu"] is None


# -- the grid and the command ----------------------------------------------------------------------
def test_the_calls_grid_is_the_issues_grid():
    grid = calls_grid()
    assert {p.name for p, _ in grid} == set(CALLS_GRID_PRIMITIVES) == {
        "sum", "cumsum", "sort", "argsort", "compact", "unique", "histogram", "topk"}
    assert sorted({n for _, n in grid}) == [2**10, 2**16, 2**20, 2**24, 2**28] == list(CALLS_GRID_SIZES)
    assert len(grid) == 40 and all(p.missing() is None for p, _ in grid)
    # Rows that share an input follow each other within a size.
    makes = [(p.make, p.dtypes[0]) for p, n in grid if n == 2**10]
    assert makes == sorted(makes, key=makes.index)


def test_bench_calls_grid_writes_the_per_call_figures(tmp_path, capsys):
    out = tmp_path / "calls.json"
    code = main(["bench", "--calls-grid", "sum", "sort", "--sizes", "2^10", "--compare", "numpy", "--calls", "10",
                 "--warmup-ms", "1", "--round-ms", "1", "--repeat", "1", "--json", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "per call (host wall time, ms)" in text and "wgprim call" in text and "call/GPU" in text
    data = json.loads(out.read_text())
    assert data["schema"] == 3 and data["protocol"]["per_call"] and data["protocol"]["rounds"] == 1
    assert [(r["primitive"], r["n"]) for r in data["rows"]] == [("sum", 1024), ("sort", 1024)]
    assert not data["blockscan_claim"]
    for row in data["rows"]:
        assert row["call_ms"] > 0 and row["latency_ms"] > 0 and row["call_stats"]["wgprim"]["calls"] == 10
        assert row["refs"]["numpy"]["ms"] > 0 and row["refs"]["numpy"]["call_ms"] is None
    assert main(["bench", "--calls-grid", "--targets"]) == 2
    assert main(["bench", "--calls-grid", "min"]) == 2


def test_the_calls_grid_protocol_is_lighter_unless_told(monkeypatch):
    seen = {}

    def measure(p, n, d, refs, protocol, copy_gbps):
        seen["protocol"] = protocol
        return harness.Row(p.name, n, d, True, 1.0)

    monkeypatch.setattr(harness, "measure", measure)
    monkeypatch.setattr(harness, "copy_bandwidth", lambda nbytes, protocol: 1.0)
    assert main(["bench", "--calls-grid", "sum", "--sizes", "2^10", "--compare", ""]) == 0
    assert (seen["protocol"].rounds, seen["protocol"].round_ms, seen["protocol"].warmup_ms) == (3, 10.0, 200.0)
    assert main(["bench", "--calls-grid", "sum", "--sizes", "2^10", "--compare", "", "--repeat", "7"]) == 0
    assert seen["protocol"].rounds == 7
    assert main(["bench", "sum", "--sizes", "2^10", "--compare", "", "--no-per-call"]) == 0
    assert (seen["protocol"].rounds, seen["protocol"].per_call) == (5, False)


# -- readers of bench JSON, old and new --------------------------------------------------------------
def test_readers_take_both_schemas():
    old = {"primitive": "sum", "dtype": "float32", "n": 4, "wgprim_ms": 1.0, "refs": {"cupy": 0.5}}
    new = {"primitive": "sum", "dtype": "float32", "n": 4, "wgprim_ms": 1.0,
           "refs": {"cupy": {"ms": 0.5, "call_ms": 0.7, "latency_ms": 0.9}}}
    assert results.refs_of(old) == {"cupy": {"ms": 0.5, "call_ms": None, "latency_ms": None}}
    assert results.refs_of(new) == {"cupy": {"ms": 0.5, "call_ms": 0.7, "latency_ms": 0.9}}
    assert results.ref_ms(old) == results.ref_ms(new) == {"cupy": 0.5}
    assert results.per_call_rows({"rows": [old]}) == []  # nothing per call in a schema 2 row


def test_agree_reads_old_and_new_files_and_mixes_them(tmp_path):
    old = json.loads((ROOT / "benchmarks" / "h200-2026-12-01-9.json").read_text())  # schema 2, as committed
    assert all(not isinstance(v, dict) for r in old["rows"] for v in r["refs"].values())
    same = agree.compare(old, old)
    assert same and all(r["agree"] for r in same) and {r["side"] for r in same} >= {"wgprim", "cupy", "torch"}
    new = json.loads(FIXTURE.read_text())
    assert all(isinstance(v, dict) for r in new["rows"] for v in r["refs"].values())
    mixed = agree.compare(new, {"rows": [dict(r, refs=results.ref_ms(r)) for r in new["rows"]]})
    assert mixed and all(r["agree"] and r["ratio"] == 1.0 for r in mixed)
    a, b = tmp_path / "old.json", tmp_path / "new.json"
    a.write_text(json.dumps({"rows": [dict(r, refs=results.ref_ms(r)) for r in new["rows"]]}))
    b.write_text(FIXTURE.read_text())
    assert agree.main([str(a), str(b), "--references"]) == 0


def test_plot_reads_both_schemas(tmp_path):
    pytest.importorskip("matplotlib")
    from wgprim.bench.plot import plot

    new = json.loads(FIXTURE.read_text())["rows"]
    old = [dict(r, refs=results.ref_ms(r)) for r in new]
    for rows, name in ((new, "new.png"), (old, "old.png")):
        plot(rows, str(tmp_path / name), "title")
        assert (tmp_path / name).stat().st_size > 0


# -- the tables -----------------------------------------------------------------------------------
def test_markdown_table_from_a_calls_json():
    data = json.loads(FIXTURE.read_text())
    table = results.markdown_table(data)
    lines = table.splitlines()
    head = [line for line in lines if line.startswith("| primitive")][0]
    assert head == ("| primitive | n | wgprim call ms | wgprim latency ms | torch call ms | torch latency ms | "
                    "CuPy call ms | CuPy latency ms | wgprim GPU ms | call / GPU | call vs best ref |")
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| primitive")]
    assert len(rows) == len(data["rows"])
    assert rows[0] == ("| sum f32 | 2^10 | 0.0400 | 0.0700 | 0.0200 | 0.0300 | 0.0100 | 0.0500 | 0.0100 | 4.0x "
                       "| 0.25x CuPy |")
    topk = [r for r in rows if r.startswith("| topk")][0]
    assert topk.split(" | ")[6:8] == ["-", "-"]  # CuPy has no top-k: left out, and said why
    assert "topk: cupy: no cupy function for topk" in table
    assert "2026-12-02 10:00 UTC" in lines[0]


def test_per_call_table_script_renders_the_fixture(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["per_call_table.py", str(FIXTURE)])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(ROOT / "benchmarks" / "per_call_table.py"), run_name="__main__")
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "| sum f32 | 2^10 |" in out and "calls-fixture.json" in out


def test_text_table_has_a_line_per_row_with_per_call_figures():
    data = json.loads(FIXTURE.read_text())
    lines = results.text_table(data["rows"])
    assert lines[0].split()[:5] == ["primitive", "dtype", "n", "wgprim", "call"]
    assert len(lines) == 2 + len(data["rows"])
    first = lines[2].split()
    assert first[:5] == ["sum", "float32", "1,024", "0.0400", "0.0700"] and first[-1] == "4.0"
