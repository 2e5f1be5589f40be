"""An append buffer's capacity check reads its counter early, but safely: the counter only
grows, and the slot comes from the value atomicAdd returns. A bound test on a counter whose
additions nobody reserves with still reads a partial total."""
from __future__ import annotations

from wgprim.check import check_source

HEAD = """\
@group(0) @binding(0) var<storage, read_write> count: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> slots: array<u32>;
const CAP = 512u;
"""


def rules(body: str) -> list[str]:
    return sorted(f.rule for f in check_source(HEAD + body, "t.wgsl"))


def test_full_check_before_reserving_a_slot_is_clean():
    assert rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    if (CAP <= atomicLoad(&count)) { return; }
    let k = atomicAdd(&count, 1u);
    if (k < CAP) { slots[k] = g.x; }
}
""") == []


def test_bound_test_on_a_plain_tally_reads_a_partial_value():
    assert rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    atomicAdd(&count, 1u);
    if (atomicLoad(&count) >= CAP) { slots[g.x] = 1u; }
}
""") == ["same-dispatch-read"]


def test_an_upper_bound_test_is_not_a_capacity_check():
    assert rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    if (atomicLoad(&count) < CAP) { slots[g.x] = atomicAdd(&count, 1u); }
}
""") == ["same-dispatch-read"]


def test_one_invocation_dispatch_reads_back_its_own_updates():
    assert rules("""
@compute @workgroup_size(1)
fn clamp_count() {
    var n = atomicLoad(&count);
    while (n >= CAP) {
        atomicAdd(&count, 0xffffffffu);
        n -= 1u;
    }
    atomicMin(&count, CAP);
}
""") == []


def test_the_same_code_run_by_many_invocations_reads_a_partial_value():
    assert rules("""
@compute @workgroup_size(64)
fn clamp_count() {
    let n = atomicLoad(&count);
    slots[0] = n;
    atomicMin(&count, CAP);
}
""") == ["same-dispatch-read"]
