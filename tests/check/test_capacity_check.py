"""An append buffer's capacity check reads its counter early, but safely: the counter only
grows, and the slot comes from the value atomicAdd returns. A bound test on a counter whose
additions nobody reserves with still reads a partial total, unless a loop with a bound of its
own only decides when to stop by it (a best-effort rendezvous)."""
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


# A best-effort rendezvous: each workgroup counts itself in, then polls the count a bounded
# number of times until it reaches a limit. Whatever the spelling of the poll (atomicLoad,
# atomicAdd of 0u, a variable, a helper that returns the count), the partial value only
# decides when a bounded loop stops.
RENDEZVOUS = """
fn count() -> u32 {{ return atomicLoad(&count); }}
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {{
    var polls = 0u;
    var seen = atomicAdd(&count, 1u);
    loop {{
        if ({exit}) {{ break; }}
        seen = {poll};
        polls += 1u;
    }}
    {after}
    slots[g.x] = 1u;
}}
"""


def rendezvous(exit="polls == 1024u || seen >= CAP", poll="atomicAdd(&count, 0u)", after=""):
    return rules(RENDEZVOUS.format(exit=exit, poll=poll, after=after))


def test_a_bounded_poll_of_a_growing_count_is_a_best_effort_read():
    assert rendezvous() == []
    assert rendezvous(poll="atomicLoad(&count)") == []
    assert rendezvous(poll="count()") == []
    assert rendezvous(exit="polls >= 1024u || CAP <= seen") == []
    assert rendezvous(exit="polls == 1024u || atomicLoad(&count) >= CAP", poll="0u") == []


def test_the_polled_count_used_otherwise_is_a_partial_value():
    assert rendezvous(after="slots[0] = seen;") == ["same-dispatch-read"]
    assert rendezvous(exit="polls == 1024u || seen == CAP") == ["same-dispatch-read"]
    # a count that can also go down: a lower bound read early may be wrong
    assert rendezvous(after="atomicSub(&count, 1u);") == ["same-dispatch-read"]


def test_without_its_own_bound_the_poll_is_a_global_barrier():
    assert rendezvous(exit="seen >= CAP") == ["global-barrier"]
