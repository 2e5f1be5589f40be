"""Compare-exchange retry loops that expect exactly the value just read are lock-free (a
failure means another invocation changed the word, so someone progressed): not waits. One
that expects a value of its own choosing (`v & ~1u`, a constant) or that can go around
without trying the exchange waits for another invocation. And an early exit on a shared
abort flag does not publish the element each invocation reads back at its own global id."""
from __future__ import annotations

from wgprim.check import check_source

HEAD = """\
@group(0) @binding(0) var<storage, read_write> words: array<atomic<u32>, 4>;
@group(0) @binding(1) var<storage, read_write> items: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
"""


def rules(body: str) -> list[str]:
    return sorted(f.rule for f in check_source(HEAD + body, "t.wgsl"))


def test_stack_pop_retrying_a_failed_exchange_is_not_a_wait():
    assert rules("""
fn pop() -> u32 {
    var got = 0xffffffffu;
    loop {
        let top = atomicLoad(&words[1]);
        if (top == 0u) { break; }
        let r = atomicCompareExchangeWeak(&words[1], top, top - 1u);
        if (r.exchanged) { got = items[top - 1u]; break; }
    }
    return got;
}
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) { out[g.x] = pop(); }
""") == []


def test_pop_returning_from_inside_the_retry_is_not_a_wait():
    assert rules("""
fn take() -> u32 {
    loop {
        let n = atomicLoad(&words[2]);
        if (n == 0u) { break; }
        if (atomicCompareExchangeWeak(&words[2], n, n - 1u).exchanged) { return items[n - 1u]; }
    }
    return atomicAdd(&words[0], 1u);
}
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) { out[g.x] = take(); }
""") == []


def test_a_way_around_that_skips_the_exchange_still_waits():
    assert "spin-wait" in rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    loop {
        let v = atomicLoad(&words[0]);
        if (v == 0u) {
            if (atomicCompareExchangeWeak(&words[0], v, 1u).exchanged) { break; }
        }
    }
    atomicStore(&words[0], 0u);
}
""")


def test_expecting_a_bit_cleared_waits_for_the_bit():
    assert "spin-wait" in rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    loop {
        let v = atomicLoad(&words[0]);
        if (atomicCompareExchangeWeak(&words[0], v & ~1u, v | 1u).exchanged) { break; }
    }
    atomicAnd(&words[0], ~1u);
}
""")


def test_abort_flag_before_updating_ones_own_element_publishes_nothing():
    assert rules("""
var<workgroup> stop: u32;
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(local_invocation_index) li: u32) {
    if (li == 0u) { stop = atomicLoad(&words[3]); }
    if (workgroupUniformLoad(&stop) != 0u) { return; }
    items[g.x] = items[g.x] * 3u;
    if (items[g.x] > 1000u) { atomicStore(&words[3], 1u); }
}
""") == []


def test_a_ready_flag_indexed_like_the_data_is_still_message_passing():
    assert "flag-publish" in rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u, @builtin(workgroup_id) w: vec3u) {
    let i = g.x % 4u;
    if (w.x == 0u) {
        items[i] = 7u;
        atomicStore(&words[i], 1u);
    } else if (atomicLoad(&words[i]) == 1u) {
        out[g.x] = items[i];
    }
}
""")


def test_slot_search_moving_on_from_taken_slots_is_not_a_wait():
    # the only way around without moving on is a spurious failure on a free slot
    assert rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    var slot = 0u;
    loop {
        if (slot >= 4u) { break; }
        let claim = atomicCompareExchangeWeak(&words[slot], 0u, 1u);
        if (claim.exchanged) { break; }
        if (claim.old_value != 0u) { slot += 1u; }
    }
    if (slot < 4u) { items[slot] = g.x; }
}
""") == []


def test_retrying_while_the_slot_is_taken_still_waits():
    assert "spin-wait" in rules("""
@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) g: vec3u) {
    var slot = g.x % 4u;
    loop {
        let claim = atomicCompareExchangeWeak(&words[slot], 0u, 1u);
        if (claim.exchanged) { break; }
        if (claim.old_value == 0u) { slot = (slot + 1u) % 4u; }
    }
    items[slot] = g.x;
}
""")
