"""Each finding is about one problem: choosing rules never changes what another rule says."""
from __future__ import annotations

from pathlib import Path

import pytest

from wgprim.check import check_source
from wgprim.check.rules import BY_ID

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.rglob("*.wgsl"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_selecting_or_ignoring_a_rule_leaves_the_others_alone(path):
    text = path.read_text()
    everything = check_source(text, str(path))
    for rule in BY_ID:
        own = [f for f in everything if f.rule == rule]
        if own:
            assert check_source(text, str(path), select=[rule]) == own, rule
        others = [f for f in everything if f.rule != rule]
        assert check_source(text, str(path), ignore=[rule]) == others, rule


EXCHANGE_LOCK = """\
@group(0) @binding(0) var<storage, read_write> lock: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> total: atomic<u32>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  atomicExchange(&lock, 0u);
  %s
  while (atomicExchange(&lock, 1u) == 1u) {}
  atomicAdd(&total, wid.x);
  atomicExchange(&lock, 0u);
}
"""


def test_an_exchange_wait_is_a_spin_wait_whatever_is_ignored():
    text = EXCHANGE_LOCK % ""
    assert [f.rule for f in check_source(text)] == ["spin-wait"]
    assert [f.rule for f in check_source(text, ignore=["global-barrier"])] == ["spin-wait"]
    assert [f.rule for f in check_source(text, select=["global-barrier"])] == []


def test_suppressing_one_rule_does_not_hide_another():
    text = EXCHANGE_LOCK % "// wgprim: allow(global-barrier, flag-publish)"
    assert [f.rule for f in check_source(text)] == ["spin-wait"]
    text = EXCHANGE_LOCK % "// wgprim: allow(spin-wait)"
    assert check_source(text) == []


ARRIVAL = """\
@group(0) @binding(0) var<storage, read_write> arrived: atomic<u32>;
@compute @workgroup_size(1)
fn main(@builtin(num_workgroups) nwg: vec3<u32>) {
  atomicAdd(&arrived, 1u);
  while (atomicLoad(&arrived) < nwg.x) {}
}
"""


def test_a_counter_arrival_and_wait_is_a_global_barrier_only():
    assert [f.rule for f in check_source(ARRIVAL)] == ["global-barrier"]
    assert check_source(ARRIVAL, ignore=["global-barrier"]) == []
