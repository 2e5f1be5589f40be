"""The benchmark's protocol: GPU timestamps read in real units, k runs in one submit,
chunked buffers beyond one storage binding, flags, and comparing two runs."""
import json

import numpy as np

import wgprim
from wgprim.bench import agree, claim, harness, timing
from wgprim.device import binding_limit
from wgprim.ops import block_scan
from wgprim.registry import BY_NAME


def test_timestamp_period_is_a_positive_number_of_nanoseconds(device):
    assert timing.timestamp_period(device) > 0


def test_captured_runs_in_one_submit_take_no_longer_than_the_wall_clock(device, rng):
    x = wgprim.asarray(rng.standard_normal(1 << 16).astype(np.float32))
    call = lambda: wgprim.sum(x)  # noqa: E731
    call()
    programs, result = timing.capture(call)
    assert programs and timing.labels_of(programs) == timing.profiled_labels(call)
    timer = timing.SubmitTimer(device, programs, 4)
    t = timer.run()
    timer.release()
    assert len(t.per_run) == 4 and all(r >= 0 for r in t.per_run)
    assert abs(sum(t.per_run) / 4 - t.ms) <= 1e-6 * max(t.ms, 1)
    assert 0 < t.ms <= t.wall_ms
    assert result.item() == np.float32(wgprim.sum(x).item())  # the captured call ran and gave the answer


def test_a_call_that_reads_back_between_dispatches_is_not_captured(device, rng):
    x = wgprim.asarray(rng.standard_normal(5000).astype(np.float32))
    call = lambda: wgprim.compact(x, x.numpy() > 0)  # noqa: E731
    programs, _ = timing.capture(call)
    assert timing.labels_of(programs) != timing.profiled_labels(call)
    t = timing.CallTimer(device, call, 3).run()
    assert len(t.per_run) == 3 and 0 < t.ms <= t.wall_ms


def test_copy_and_block_scan_claim_work_past_one_binding(device):
    protocol = harness.Protocol(rounds=1, round_ms=1, warmup_ms=1, warmup_max_ms=50)
    with binding_limit(1 << 20):
        assert harness.copy_bandwidth(3 << 20, protocol) > 0  # three bindings' worth
        row = claim.measure(1 << 19, protocol)  # 2 MiB of u32: two chunks
    assert row.ok and row.fused_gpu_ms > 0 and row.steps_gpu_ms > 0


def test_a_row_is_checked_timed_and_summarized(device):
    protocol = harness.Protocol(rounds=3, round_ms=2, warmup_ms=1, warmup_max_ms=200)
    row = harness.measure(BY_NAME["cumsum"], 3000, "float32", {"numpy": np}, protocol, copy_gbps=10.0)
    assert row.ok and row.note == "checked against numpy"
    assert row.wgprim["mode"] == "submit" and row.wgprim["rounds"] == 3 and len(row.wgprim["rounds_ms"]) == 3
    assert row.wgprim_ms == row.wgprim["median_ms"] > 0 and row.wgprim["min_ms"] <= row.wgprim_ms
    assert row.warmup_ms is not None and row.end_to_end_ms > 0 and row.steps
    assert row.gbps > 0 and row.copy_fraction == row.gbps / 10.0
    assert row.refs["numpy"] > 0


def test_a_wrong_result_is_reported_and_not_timed(device):
    from dataclasses import replace

    wrong = replace(BY_NAME["sum"], numpy=lambda x: x.astype(np.float64).sum() + 1e6)
    row = harness.measure(wrong, 3000, "float32", {"numpy": np}, harness.Protocol(rounds=1), None)
    assert not row.ok and row.wgprim_ms is None and row.note == "checked against numpy"


def test_flags_name_a_gpu_time_above_the_wall_time_and_a_large_spread():
    base = {"median_ms": 1.0, "wall_ms": 1.2, "spread": 0.01}
    assert harness.flags_of("wgprim", base) == []
    assert harness.flags_of("wgprim", dict(base, wall_ms=0.5)) == ["wgprim: GPU time > wall time"]
    assert harness.flags_of("cupy", dict(base, spread=0.2)) == ["cupy: spread 20%"]


def test_the_same_row_gets_the_same_inputs_whatever_ran_before():
    a = harness.row_rng(0, "sum", "float32", 1000).random(5)
    harness.row_rng(0, "sort", "float32", 1000).random(5)
    assert np.array_equal(a, harness.row_rng(0, "sum", "float32", 1000).random(5))


def test_agree_compares_two_runs_row_by_row(tmp_path, capsys):
    def run(ms, cupy):
        return {"rows": [{"primitive": "sum", "dtype": "float32", "n": 2**28, "wgprim_ms": ms, "refs": {"cupy": cupy}},
                         {"primitive": "sum", "dtype": "float32", "n": 2**20, "wgprim_ms": 1.0, "refs": {}}]}

    first, second, third = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    first.write_text(json.dumps(run(0.250, 0.26)))
    second.write_text(json.dumps(run(0.255, 0.30)))
    third.write_text(json.dumps(run(0.300, 0.26)))
    assert agree.main([str(first), str(second), "--min-n", "2^28"]) == 0  # wgprim within 5%
    assert agree.main([str(first), str(second), "--min-n", "2^28", "--references"]) == 1  # CuPy's 15% apart
    assert agree.main([str(first), str(third), "--min-n", "2^28"]) == 1
    results = agree.compare(run(0.25, 0.26), run(0.3, 0.26), min_n=2**28)
    assert [(r["side"], r["agree"]) for r in results] == [("wgprim", False), ("cupy", True)]


def test_programs_that_do_not_give_the_same_answer_twice_are_timed_as_calls(device):
    # A call whose dispatches overwrite their own input: run twice in one submit, the
    # answer changes, so the row must not be timed by re-running the captured programs.
    from wgprim.pipelines import get_pipeline
    from wgprim.program import Program
    from wgprim.registry import Primitive

    def step_twice(wp, x):
        a, b = wp.asarray(x.numpy()), wp.empty(x.shape, np.uint32)
        program = Program(device, "in place")
        barrier_scan = block_scan.scan_preamble(device, "u32", subgroups=False)
        step = get_pipeline(device, "blockscan_claim", barrier_scan, "scan_step")
        groups = x.size // 256
        program.dispatch("there", step, {0: program.params(x.size, groups, 1), 1: a.buffer, 2: b.buffer}, groups)
        program.dispatch("back", step, {0: program.params(x.size, groups, 1), 1: b.buffer, 2: a.buffer}, groups)
        program.run()
        return a

    def expected(x):
        for _ in range(2):
            y = x.reshape(-1, 256).copy()
            y[:, 1:] += x.reshape(-1, 256)[:, :-1]
            x = y.ravel()
        return x

    entry = Primitive("in_place", ("sum",), ("uint32",), lambda rng, n, dt: (rng.integers(0, 1000, n).astype(dt),),
                      step_twice, expected)
    row = harness.measure(entry, 4096, "uint32", {}, harness.Protocol(rounds=1, round_ms=1, warmup_ms=1), None)
    assert row.ok and row.wgprim["mode"] == "calls"
    assert row.flags == ["wgprim: captured programs re-run differ; timed as calls"]
    # wgprim's histogram zeroes its bins in its own program (a clear step): run again, the
    # same answer, so it is timed by re-running the captured programs.
    row = harness.measure(BY_NAME["histogram"], 3000, "float32", {}, harness.Protocol(rounds=1, round_ms=1, warmup_ms=1),
                          None)
    assert row.ok and row.wgprim["mode"] == "submit"
