"""`wgprim.check.rounds` on its own: what a way around knows, the ways that end the loop at
their next test, and state machines run from where they start, on parsed loops with the
knowledge of the walk replaced by constants."""
from __future__ import annotations

from wgprim.check import rounds
from wgprim.check.parser import parse

TEXT_OF = {}


class Facts(rounds.PathFacts):
    """Constants from literals only; `lock` a workgroup variable the loop stores 0u into."""

    def const(self, node):
        if node.data == "literal" and str(node.children[0]).rstrip("u").isdigit():
            return int(str(node.children[0]).rstrip("u"))
        return None

    def text(self, node) -> str:
        return TEXT_OF[0][node.meta.start_pos:node.meta.end_pos]

    def settled(self, name):
        return 0 if name == "lock" else None

    def is_global(self, name):
        return name in ("lock", "flag")

    def is_function(self, name):
        return False


def first_loop(body: str):
    text = "var<workgroup> lock: u32;\nfn f() {\n" + body + "\n}\n"
    TEXT_OF[0] = text
    fn = parse(text).tree.children[1]
    for node in fn.iter_subtrees_topdown():
        if node.data in ("while_stmt", "loop_stmt", "for_stmt"):
            return fn.children[-1], node
    raise AssertionError("no loop")


def test_a_round_that_reads_back_its_own_clearing_store_ends_the_loop():
    _, loop = first_loop("""
  var locked = 1u;
  while (locked == 1u) {
    lock = 0u;
    locked = workgroupUniformLoad(&lock);
  }""")
    assert rounds.ways_around(loop, {}, Facts()) == set()


def test_a_plain_read_or_a_nested_loop_forgets():
    _, loop = first_loop("""
  var locked = 1u;
  while (locked == 1u) {
    lock = 0u;
    locked = lock;
  }""")
    assert rounds.ways_around(loop, {}, Facts()) == {frozenset()}
    _, loop = first_loop("""
  var locked = 1u;
  while (locked == 1u) {
    locked = 0u;
    for (var i = 0u; i < 4u; i++) { locked = 1u; }
  }""")
    assert rounds.ways_around(loop, {}, Facts()) == {frozenset()}


def test_what_is_known_where_a_loop_starts():
    body, loop = first_loop("""
  var pc = 0u;
  var done: bool;
  var other = 3u;
  if (other == 2u) { pc = 5u; }
  while (!done) {
    if (pc == 1u) { done = true; } else { pc = 1u; }
  }""")
    known, _ = rounds.entry_knowledge(rounds.block_statements(body), loop, Facts())
    assert known == {"done": False, "other": 3}  # pc: assigned in a branch on the way
    assert rounds.rounds_end(loop, {}, Facts(), ({"pc": 0, "done": False}, {}), frozenset())
    # a state that stays put forever
    _, stuck = first_loop("""
  var pc = 0u;
  var done = false;
  while (!done) {
    if (pc == 1u) { done = true; } else { pc = 0u; }
  }""")
    assert not rounds.rounds_end(stuck, {}, Facts(), ({"pc": 0, "done": False}, {}), frozenset())
