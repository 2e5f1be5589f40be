"""--plot draws a timeline image."""
import pytest

pytest.importorskip("matplotlib")

from wgprim.sim import SCENARIOS, Machine, simulate  # noqa: E402
from wgprim.sim.plot import plot_timeline  # noqa: E402

PNG = b"\x89PNG"


@pytest.mark.parametrize("name,policy", [("chained-scan", "adversarial"),
                                         ("two-dispatch", "in-order"),
                                         ("decoupled-fallback", "adversarial")])
def test_plot_writes_png(tmp_path, name, policy):
    result = simulate(SCENARIOS[name].build(24, 3), Machine(2, 4), policy, trace=True)
    path = tmp_path / "t.png"
    plot_timeline(result, str(path))
    assert path.read_bytes()[:4] == PNG


def test_large_trace_is_binned(tmp_path):
    result = simulate(SCENARIOS["decoupled-fallback"].build(3000, 3), Machine(2, 40),
                      "random", trace=True)
    path = tmp_path / "big.png"
    plot_timeline(result, str(path))  # 80 slots: the first 32 are drawn
    assert path.read_bytes()[:4] == PNG


def test_cli_plot(tmp_path, capsys):
    import argparse

    from wgprim.sim import cli

    parser = argparse.ArgumentParser()
    cli.configure(parser)
    path = tmp_path / "spin.png"
    assert cli.run(parser.parse_args(["spin-lock", "-n", "40", "-c", "2", "-r", "4",
                                      "--plot", str(path)])) == 0
    assert path.read_bytes()[:4] == PNG
    assert f"wrote {path}" in capsys.readouterr().out
