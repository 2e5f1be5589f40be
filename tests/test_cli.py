"""The `wgprim` command end to end: demo, bench, info, and the dispatcher itself."""
import json

import pytest

from wgprim.cli import main


def exit_status(argv) -> int:
    """main's return value, or the status argparse exits with on a bad argument."""
    try:
        return main(argv)
    except SystemExit as exit:
        return exit.code


def test_demo_checks_every_primitive(capsys):
    assert main(["demo", "-n", "3000"]) == 0
    out = capsys.readouterr().out
    assert "WRONG" not in out and "ERROR" not in out
    for name in ("sum", "cumsum", "sort", "argsort", "histogram", "compact", "unique"):
        assert f"\n{name}" in out


def test_demo_only_filters(capsys):
    assert main(["demo", "-n", "1000", "--only", "argmax"]) == 0
    rows = [l for l in capsys.readouterr().out.splitlines() if l.startswith("argmax")]
    assert len(rows) == 6  # f32, i32, u32, i64, u64, f64


@pytest.mark.parametrize("size", ["0", "-5", "ten"])
def test_demo_rejects_a_size_that_is_not_positive(size, capsys):
    assert exit_status(["demo", "-n", size]) == 2
    captured = capsys.readouterr()
    assert "ERROR" not in captured.out and "-n" in captured.err


def test_demo_only_with_no_match_names_the_choices(capsys):
    assert exit_status(["demo", "--only", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "cumsum" in err and "histogram" in err


def test_bench_rejects_an_unsupported_dtype_naming_the_choices(capsys):
    assert exit_status(["bench", "sum", "--dtype", "int8"]) == 2
    err = capsys.readouterr().err
    assert "int8" in err and "float32" in err and "uint32" in err


def test_bench_rejects_a_dtype_no_chosen_primitive_takes(capsys):
    assert exit_status(["bench", "sum", "--dtype", "bool", "--sizes", "2^10"]) == 2
    assert "bool" in capsys.readouterr().err


def test_output_that_is_not_a_terminal_has_no_carriage_returns(capsys):
    assert main(["demo", "-n", "1000", "--only", "sum"]) == 0
    assert main(["bench", "sum", "--sizes", "2^10", "--repeat", "1", "--compare", "numpy", "--calls", "10",
                 "--warmup-ms", "1", "--round-ms", "1"]) == 0
    captured = capsys.readouterr()
    assert "\r" not in captured.out and "\r" not in captured.err


def test_bench_small_run_writes_json_and_plot(tmp_path, capsys):
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    code = main(["bench", "sum", "cumsum", "sort", "compact", "blockscan-claim", "--sizes", "2^12,5000",
                 "--repeat", "2", "--warmup-ms", "20", "--round-ms", "5", "--compare", "numpy", "--calls", "10",
                 "--json", str(out_json), "--plot", str(out_png), "--repeat-first"])
    assert code == 0
    data = json.loads(out_json.read_text())
    assert {r["primitive"] for r in data["rows"]} == {"sum", "cumsum", "sort", "compact"}
    assert all(r["ok"] for r in data["rows"])
    assert data["blockscan_claim"] and all(c["ok"] for c in data["blockscan_claim"])
    assert out_png.stat().st_size > 0
    # The schema docs/bench.md describes.
    assert data["schema"] == 3 and data["timestamp_period_ns"] > 0 and data["protocol"]["rounds"] == 2
    for row in data["rows"]:
        stats = row["wgprim"]
        assert stats["mode"] in ("submit", "calls") and stats["rounds"] == 2 and len(stats["rounds_ms"]) == 2
        assert stats["min_ms"] <= stats["median_ms"] <= stats["max_ms"] and stats["k"] >= 1
        assert row["wgprim_ms"] == stats["median_ms"] and isinstance(row["flags"], list)
        assert row["refs"]["numpy"]["ms"] > 0 and row["ref_stats"]["numpy"]["mode"] == "host"
        assert row["call_ms"] > 0 and row["latency_ms"] > 0  # per call, part of every row
    assert {r["wgprim"]["mode"] for r in data["rows"] if r["primitive"] == "sum"} == {"submit"}
    assert {r["wgprim"]["mode"] for r in data["rows"] if r["primitive"] == "compact"} == {"calls"}
    first = data["repeat_first"]
    assert (first["primitive"], first["n"]) == ("sum", 4096) and first["first_ms"] > 0 and first["last_ms"] > 0
    assert first["agree"] == (abs(first["last_ms"] / first["first_ms"] - 1) <= 0.05)


def test_bench_skips_entries_whose_function_is_missing(tmp_path, capsys):
    out_json = tmp_path / "b.json"
    code = main(["bench", "sum", "topk", "--sizes", "2^10", "--repeat", "1", "--compare", "numpy", "--calls", "10",
                 "--warmup-ms", "1", "--round-ms", "1", "--json", str(out_json)])
    data = json.loads(out_json.read_text())
    import wgprim

    if hasattr(wgprim, "topk"):
        assert {r["primitive"] for r in data["rows"]} == {"sum", "topk"}
    else:
        assert code == 0 and [r["primitive"] for r in data["rows"]] == ["sum"]
        assert data["skipped"] == [{"primitive": "topk", "reason": "wgprim.topk does not exist"}]
        assert "skipped topk" in capsys.readouterr().out


def test_bench_rejects_bad_arguments(capsys):
    assert exit_status(["bench", "nosuchprimitive"]) == 2
    assert "sort_pairs" in capsys.readouterr().err  # names the choices
    assert exit_status(["bench", "sum", "--sizes", "2^x"]) == 2
    assert exit_status(["bench", "sum", "--sizes", "0"]) == 2
    assert exit_status(["bench", "sum", "--compare", "fortran"]) == 2
    assert exit_status(["bench", "sum", "--repeat", "0"]) == 2


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "simulate" in capsys.readouterr().out


def test_check_passes_on_every_shipped_kernel(capsys):
    from pathlib import Path

    import wgprim
    kernels = Path(wgprim.__file__).parent / "kernels"
    assert main(["check", str(kernels)]) == 0


def test_bench_targets_run_their_rows_at_the_sizes_asked(tmp_path):
    out_json = tmp_path / "t.json"
    assert main(["bench", "--targets", "sum", "cumsum", "--sizes", "2^10,2^12", "--min-size", "2^12",
                 "--repeat", "1", "--compare", "numpy", "--calls", "10", "--warmup-ms", "1", "--round-ms", "1",
                 "--json", str(out_json)]) == 0
    rows = json.loads(out_json.read_text())["rows"]
    assert [(r["primitive"], r["dtype"], r["n"]) for r in rows] == [
        ("sum", "float32", 4096), ("cumsum", "float32", 4096), ("sum", "int64", 4096), ("cumsum", "int64", 4096),
        ("cumsum", "uint32", 4096)]
    assert all(set(r["seconds"]) == {"prepare", "check", "time", "per_call"} for r in rows)


@pytest.mark.parametrize("argv, limit", [
    (["simulate", "spin-lock", "-c", "1000000000000"], "limited to 1000000"),
    (["simulate", "spin-lock", "--workgroup-size", "1", "--cu-invocations", "10000000000000",
      "--cu-max-workgroups", "10000000000000"], "limited to 1000000"),
    (["demo", "--seed", "-1"], "integer >= 0"),
    (["demo", "-n", "2^40"], "limit of 4294967295 elements"),
    (["demo", "-n", "2^99999999999"], "limit of 4294967295 elements"),
    (["bench", "sum", "--sizes", "2^40"], "limit of 4294967295 elements"),
    (["bench", "sum", "--min-size", "2^40"], "limit of 4294967295 elements"),
    (["bench", "sum", "--seed", "-1"], "integer >= 0"),
    (["bench", "sum", "--round-ms", "nan"], "positive finite"),
    (["bench", "sum", "--warmup-ms", "inf"], "positive finite"),
    (["bench", "sum", "--sizes", "2^10", "--json", "/missing/dir/x.json"], "/missing/dir does not exist"),
    (["bench", "sum", "--sizes", "2^10", "--plot", "/missing/dir/x.png"], "/missing/dir does not exist"),
    (["bench", "topk", "--sizes", "50"], "nothing to measure"),
    (["bench", "sum", "--sizes", "2^10", "--plot", "out.xyz"], "'.xyz' is not a format matplotlib writes"),
    (["bench", "sum", "--sizes", "2^10", "--plot", "out"], "no extension is not a format"),
])
def test_bad_options_exit_2_with_one_line_naming_the_limit(argv, limit, capsys):
    """Each once gave a traceback (MemoryError, numpy's seed error), a run of error rows,
    an empty table, or a failure only after the whole run."""
    assert exit_status(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and limit in lines[0] and "Traceback" not in captured.err, captured.err
    assert "copy kernel" not in captured.out  # nothing ran


def test_demo_refuses_more_elements_than_the_largest_buffer_holds(device, capsys):
    n = device.max_buffer_bytes // 4 + 1
    assert exit_status(["demo", "-n", str(n), "--only", "sum"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and ("largest buffer" in lines[0] or "limit of" in lines[0])
