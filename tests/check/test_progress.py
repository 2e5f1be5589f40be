"""Loop verdicts (`wgprim.check.progress`, `wgprim.check.loops`): a way around that cannot
be taken, or that ends the loop at its next test, does not go around; a round that found
the workgroup's lock cleared (by the loop's own store, read back through a uniform load)
ends the loop. Each bounded design has unbounded twins that must stay reported."""
from __future__ import annotations

from pathlib import Path

from wgprim.check import check_source

CORPUS = Path(__file__).parent / "corpus"
UNLOCKS = (CORPUS / "clean" / "fallback_unlocks_itself.wgsl").read_text()


def rules(text: str) -> list[str]:
    # (lookback-depth warns of these walks' depth, not of a wait: tests/check/test_lookback_depth.py)
    return sorted(f.rule for f in check_source(text, "t.wgsl", ignore=["lookback-depth"]))


def test_a_fallback_loop_that_clears_its_own_lock_is_bounded():
    assert rules(UNLOCKS) == []


def test_without_the_step_back_it_waits():
    assert rules(UNLOCKS.replace("        back -= 1u;", "        let nothing = 0u;")) == ["spin-wait"]


def test_a_lock_word_the_loop_also_sets_again_is_not_known_cleared():
    twin = UNLOCKS.replace("        back -= 1u;", "        let nothing = 0u;").replace(
        "      if (back == 0u) {", "      if (back == 0u) { wg_locked = 1u;")
    assert rules(twin) == ["spin-wait"]


def test_a_plain_read_of_the_lock_word_may_see_the_old_value():
    twin = UNLOCKS.replace("    locked = workgroupUniformLoad(&wg_locked);", "    workgroupBarrier(); locked = wg_locked;")
    assert "spin-wait" in rules(twin)


def test_a_branch_that_cannot_be_taken_and_a_round_that_ends_at_the_next_test():
    head = """
@group(0) @binding(0) var<storage, read_write> flag: atomic<u32>;
@compute @workgroup_size(1)
fn main() {
  var done = false;
  var tries = 0u;
"""
    # the only way around that makes no progress sets `done`, which ends the loop at once
    bounded = head + """
  while (!done) {
    if (atomicLoad(&flag) == 1u) { done = true; } else { tries += 1u; }
    if (tries > 8u) { break; }
  }
}
"""
    assert rules(bounded) == []
    # ...unless the loop sets it back before its test
    waits = head + """
  while (!done) {
    if (atomicLoad(&flag) == 1u) { done = true; } else { done = false; }
    if (tries > 8u) { break; }
  }
}
"""
    assert rules(waits) == ["spin-wait"]


MACHINE = """
@group(0) @binding(0) var<storage, read_write> gate: array<atomic<u32>, 4>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {{
  var pc = 0u;
  var done = false;
  var slot = wid.x & 3u;
  while (!done) {{
    switch pc {{
      case 0u {{
        if (atomicExchange(&gate[{index}], {written}) == {stay}) {{ pc = 0u; }} else {{ pc = 1u; }}
      }}
      case 1u {{ {state1} pc = 2u; }}
      default {{ done = true; }}
    }}
  }}
}}
"""


def machine(index="slot", written="1u", stay="0u", state1=""):
    return rules(MACHINE.format(index=index, written=written, stay=stay, state1=state1))


def test_a_state_machine_whose_exchange_sets_its_own_exit_is_bounded():
    assert machine() == []
    assert machine(written="2u", stay="1u") == []


def test_an_exchange_that_stores_what_keeps_it_waiting_is_a_lock():
    assert machine(written="0u") == ["spin-wait"]
    assert machine(written="1u", stay="1u") == ["spin-wait"]


def test_the_exchange_must_hit_the_same_word_and_nothing_else_must_undo_it():
    assert machine(index="pc + slot") == ["spin-wait"]  # (pc changes: another word each state)
    # state 1 stores 0 back, and a state machine may come round to state 0 again
    twin = MACHINE.replace("pc = 2u;", "pc = 0u;").format(
        index="slot", written="1u", stay="0u", state1="atomicStore(&gate[slot], 0u);")
    assert rules(twin) == ["spin-wait"]


def test_a_state_machine_over_constants_that_always_moves_on_is_bounded():
    text = """
@group(0) @binding(0) var<storage, read_write> m: atomic<u32>;
@compute @workgroup_size(1)
fn main() {
  var pc = 0u;
  var terminate = 0u;
  while (true) {
    if (terminate == 1u) { break; }
    switch pc {
      case 0u { atomicStore(&m, 1u); pc = pc + 1u; }
      case 1u { if (atomicLoad(&m) == 0u) { pc = 2u; } else { pc = 2u; } }
      case 2u { terminate = 1u; }
      default {}
    }
  }
}
"""
    assert rules(text) == []
    # ...but one that stays in state 1 until another invocation stores waits
    assert rules(text.replace("if (atomicLoad(&m) == 0u) { pc = 2u; }", "if (atomicLoad(&m) == 0u) { pc = 1u; }")) == [
        "spin-wait"]
