"""`wgprim simulate`: arguments, exit status, text and JSON output."""
import argparse
import builtins
import json

import pytest

from wgprim.sim import cli


def simulate_cli(*argv):
    parser = argparse.ArgumentParser(prog="wgprim simulate")
    cli.configure(parser)
    return cli.run(parser.parse_args([str(a) for a in argv]))


def test_deadlock_exits_zero_and_explains(capsys):
    assert simulate_cli("spin-lock", "--workgroups", 10000, "--compute-units", 2,
                        "--resident", 8) == 0
    out = capsys.readouterr().out
    assert "verdict: deadlock" in out
    assert "workgroup 0 waits for 9999; 9999 is queued behind 9983 others" in out
    assert "(the simulation agrees)" in out


def test_completes_reports_makespan_and_utilization(capsys):
    assert simulate_cli("two-dispatch", "-n", 100, "-c", 4, "-r", 4) == 0
    out = capsys.readouterr().out
    assert "verdict: completes, makespan 14" in out and "slot utilization" in out


def test_json_is_one_object(capsys):
    assert simulate_cli("global-barrier", "-n", 20, "-c", 1, "-r", 4, "--policy", "random",
                        "--seed", 3, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scenario"] == "global-barrier" and out["verdict"] == "deadlock"
    assert out["makespan"] is None and out["queued"] == 16 and len(out["waiting"]) == 4
    assert out["predicted"] == "deadlock" and out["seed"] == 3


def test_resident_derived_from_workgroup_resources(capsys):
    simulate_cli("global-barrier", "-n", 8, "-c", 2, "--workgroup-size", 64,
                 "--workgroup-memory", 16384, "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["resident"] == 4 and out["verdict"] == "completes"


@pytest.mark.parametrize("argv", [
    ["spin-lock", "-n", "0"],
    ["spin-lock", "-c", "-2"],
    ["spin-lock", "-r", "x"],
    ["spin-lock", "--policy", "fifo"],
    ["no-such-scenario"],
    ["spin-lock", "-r", "4", "--workgroup-size", "64"],
    ["spin-lock", "--workgroup-size", "4096"],
    ["spin-lock", "--plot", "/no/such/folder/t.png"],
    ["spin-lock", "-n", str(cli.MAX_WORKGROUPS + 1)],
    ["spin-lock", "--policy", "contiguous"],
    ["lookback-loop-cap", "--plot", "t.png"],
    ["lookback-loop-cap", "-n", "5", "--elements", "100"],
    ["lookback-loop-cap", "--loop-cap", "-1"],
    ["lookback-loop-cap", "--protocol", "mid"],
    ["lookback-loop-cap", "--workers", "0"],
    ["lookback-loop-cap", "--elements", str(8192 * cli.MAX_WORKGROUPS + 1)],
])
def test_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        simulate_cli(*argv)
    assert exit_info.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_missing_matplotlib_says_how_to_install(monkeypatch, tmp_path, capsys):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(SystemExit) as exit_info:
        simulate_cli("spin-lock", "--plot", tmp_path / "t.png")
    assert exit_info.value.code == 2
    assert "pip install 'wgprim[plot]'" in capsys.readouterr().err


def test_through_the_wgprim_command(capsys):
    """The top-level CLI wires this module in."""
    from wgprim.cli import main

    assert main(["simulate", "spin-lock", "-n", "16", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "completes"


def test_lookback_loop_cap_old_against_new(capsys):
    """Issue 33's repro, 30,000,000 u32 on 2 llvmpipe threads: the old protocol writes tile
    1831 as zeros, the new one is right."""
    assert simulate_cli("lookback-loop-cap", "--protocol", "old") == 0
    old = capsys.readouterr().out
    assert "30000000 elements = 3663 tiles of 8192, 1 dispatch of 3663 tiles" in old
    assert "verdict: wrong, 1 of 3663 tiles" in old
    assert "tile 1831 (elements 14999552..15007743): written as zeros; its loops were cut" in old
    assert "past the loop cap 65535" in old

    assert simulate_cli("lookback-loop-cap", "--protocol", "new") == 0
    new = capsys.readouterr().out
    assert "9 dispatches of at most 447 tiles" in new and "verdict: right, all 3663 tiles" in new
    assert "within the loop cap 65535" in new


def test_lookback_loop_cap_json(capsys):
    assert simulate_cli("lookback-loop-cap", "--protocol", "old", "-n", 300, "--loop-cap", 5000,
                        "--policy", "adversarial", "--workers", 3, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scenario"] == "lookback-loop-cap" and out["verdict"] == "wrong"
    assert out["tiles"] == 300 and out["elements"] == 300 * 8192 and out["dispatches"] == 1
    assert out["wrong_tiles"] == out["cut_tiles"] and out["longest"]["cut"]
    assert all(why == "written as zeros" for why in out["why"].values())

    assert simulate_cli("lookback-loop-cap", "-n", 300, "--loop-cap", 0, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "right" and out["loop_cap"] is None and out["dispatches"] == 1


def test_help_names_the_lookback_scenario(capsys):
    parser = argparse.ArgumentParser(prog="wgprim simulate")
    cli.configure(parser)
    text = parser.format_help()
    assert "lookback-loop-cap" in text and "--spin-budget" in text and "contiguous" in text


def documented_runs():
    """Each `$ wgprim simulate ...` of docs/simulate.md with the lines shown after it
    ("..." stands for lines left out; --json examples are shown wrapped, so not here)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "simulate.md").read_text()
    runs = []
    for block in text.split("```")[1::2]:
        for chunk in block.split("$ wgprim simulate ")[1:]:
            command, *shown = chunk.strip("\n").split("\n")
            if "--json" not in command:
                runs.append(pytest.param(command.split(), [s for s in shown if s.strip() != "..."],
                                         id=command))
    return runs


@pytest.mark.parametrize("argv, shown", documented_runs())
def test_documented_output_is_what_the_command_prints(argv, shown, capsys):
    assert shown, "an example with no output shown"
    assert simulate_cli(*argv) == 0
    printed = capsys.readouterr().out.splitlines()
    at = 0
    for line in shown:  # in this order, with other lines possibly between them
        assert line in printed[at:], f"{line!r} is not printed (after line {at})"
        at = printed.index(line, at) + 1
