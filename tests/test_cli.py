"""The `wgprim` command end to end: demo, bench, info, and the dispatcher itself."""
import json

import pytest

from wgprim.cli import main


def test_demo_checks_every_primitive(capsys):
    assert main(["demo", "-n", "3000"]) == 0
    out = capsys.readouterr().out
    assert "WRONG" not in out and "ERROR" not in out
    for name in ("sum", "cumsum", "sort", "argsort", "histogram", "compact", "unique"):
        assert f"\n{name}" in out


def test_demo_only_filters(capsys):
    assert main(["demo", "-n", "1000", "--only", "argmax"]) == 0
    rows = [l for l in capsys.readouterr().out.splitlines() if l.startswith("argmax")]
    assert len(rows) == 3  # f32, i32, u32


def test_bench_small_run_writes_json_and_plot(tmp_path, capsys):
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    code = main(["bench", "sum", "cumsum", "sort", "compact", "blockscan-claim", "--sizes", "2^12,5000",
                 "--repeat", "2", "--compare", "numpy", "--json", str(out_json), "--plot", str(out_png)])
    assert code == 0
    data = json.loads(out_json.read_text())
    assert {r["primitive"] for r in data["rows"]} == {"sum", "cumsum", "sort", "compact"}
    assert all(r["ok"] for r in data["rows"])
    assert data["blockscan_claim"] and all(c["ok"] for c in data["blockscan_claim"])
    assert out_png.stat().st_size > 0


def test_bench_rejects_bad_arguments(capsys):
    assert main(["bench", "nosuchprimitive"]) == 2
    assert main(["bench", "sum", "--sizes", "2^x"]) == 2
    assert main(["bench", "sum", "--compare", "fortran"]) == 2


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "simulate" in capsys.readouterr().out


def test_check_passes_on_every_shipped_kernel(capsys):
    from pathlib import Path

    import wgprim
    kernels = Path(wgprim.__file__).parent / "kernels"
    assert main(["check", str(kernels)]) == 0
