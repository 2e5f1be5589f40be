"""lookback-depth: what a finding tells the user, and what silences it."""
from __future__ import annotations

from pathlib import Path

from wgprim.check import check_source

CORPUS = Path(__file__).parent / "corpus"


def _findings(text, **kw):
    return [f for f in check_source(text, "k.wgsl", **kw) if f.rule == "lookback-depth"]


def test_message_says_why_and_names_the_loops_of_each_step():
    text = (CORPUS / "lookback_depth" / "walk_to_tile_zero.wgsl").read_text()
    [f] = _findings(text)
    assert f.severity == "warning"
    assert f.line == 24
    assert "`state`, atomicLoad at line 25" in f.message
    assert "llvmpipe" in f.message and "65,535" in f.message and "silently" in f.message
    # the fallback's loop (reduce_tile's, line 14) runs inside each step back
    assert "further loops (line 14)" in f.message
    assert "allow(lookback-depth)" in f.hint and "loop-free" in f.hint


def test_the_outermost_walk_is_reported_once():
    text = (CORPUS / "lookback_depth" / "onesweep_rounds.wgsl").read_text()
    assert [f.line for f in _findings(text)] == [28]  # not the walk of line 30 inside it


def test_allow_comment_silences_only_this_rule_at_this_loop():
    text = (CORPUS / "lookback_depth" / "walk_to_tile_zero.wgsl").read_text()
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "expect: lookback-depth" in line)
    allowed = lines[:at] + ["  // wgprim: allow(lookback-depth) -- the host dispatches 400 tiles"] + lines[at:]
    assert _findings("\n".join(allowed)) == []
    other = lines[:at] + ["  // wgprim: allow(spin-wait) -- not this one"] + lines[at:]
    assert len(_findings("\n".join(other))) == 1


def test_a_reset_poll_count_bounds_a_step_not_the_walk():
    """A budget of polls reset at each step back (the decoupled fallback's) is not a bound
    on the walk; the same walk with a step counter that is never reset is."""
    walk = """
@group(0) @binding(0) var<storage, read_write> state: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  var back = wid.x;
  var acc = 0u;
  var polls = 0u;
  loop {
    if (back == 0u || polls == 8u) { break; }
    let s = atomicLoad(&state[back - 1u]);
    if (s == 0u) { polls += 1u; continue; }
    acc += s;
    back -= 1u;
    RESET
  }
  out[wid.x] = acc;
}
"""
    assert len(_findings(walk.replace("RESET", "polls = 0u;"))) == 1
    assert _findings(walk.replace("RESET", "polls += 1u;")) == []


def test_select_and_ignore():
    text = (CORPUS / "lookback_depth" / "claimed_tile_distance.wgsl").read_text()
    assert [f.rule for f in check_source(text, select=["lookback-depth"])] == ["lookback-depth"]
    assert check_source(text, ignore=["lookback-depth"]) == []
