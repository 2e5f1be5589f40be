"""Loops and progress: whether a loop can end without another invocation's help.

A loop is judged once the walk has converged, from what the walk recorded about it (a
`LoopRecord`: the loads it made, its writes, its assignments) and the conditions of its
exits. It waits when an exit depends on memory another invocation can change and some
way around it makes no progress of its own (`waited_storage`). Progress is a counter the
loop advances itself and an exit tests, a write of the awaited word, or a value the loop
writes itself that decides its exit; the shape of the ways around is `loops`' business.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Tree

from . import loops, rounds
from .locations import stored_ever
from .model import EMPTY, Ref, Source
from .trees import assigned_names, subtrees


@dataclass
class LoopRecord:
    """What the walk saw one loop do in the last pass: the reads it made, its writes and
    assignments (with the statement of the loop's own function each ran in)."""

    key: tuple
    node: Tree
    seq_start: int
    depth: int = 0  # how many calls deep the loop's own function is
    barrier: bool = False  # a workgroup barrier inside: its invocations go around together
    seq_end: int = 0
    created_loads: set = field(default_factory=set)
    # storage/workgroup writes in the loop: (stmt id, Ref written, atomic op or None, the constant written)
    writes: list = field(default_factory=list)
    declared: set = field(default_factory=set)
    # (stmt id, var key, vars read directly, compound, loads the stored value is computed from)
    assignments: list = field(default_factory=list)
    pointer_calls: list = field(default_factory=list)  # (stmt id, var keys passed by pointer)


SELF_WRITE = "<writes the awaited word>"


_INVOCATION_IDS = {"local_invocation_id", "local_invocation_index", "subgroup_invocation_id",
                   "subgroup_id"}


def _picks_invocations(deps: frozenset) -> bool:
    """A condition on the invocation's place in its workgroup only (`lid.x == 0u`)."""
    return (any(s.kind == "builtin" and s.name in _INVOCATION_IDS for s in deps)
            and not any(s.kind == "load" or (s.kind == "builtin" and s.name.endswith("()")) for s in deps))


def _moves(op: str | None) -> bool:
    """Whether a write of the awaited word on a way around the loop is the loop's own
    progress: an add or a store is (the loop changes what it then reads: a work queue, a
    flag it resets each round); an exchange, a compare-exchange, `atomicOr(&l, 1u)` or
    `atomicMax` of a constant writes the same thing every time: that is how a lock spins."""
    return op in (None, "atomicStore", "atomicAdd", "atomicSub", LOCK_FREE)


# a compare-exchange expecting exactly the value just read from its word: it fails only when
# another invocation changed the word in between (someone else progressed), so a way around
# a loop through it is a lock-free retry (a stack pop, a float add), not a wait
LOCK_FREE = "lock-free compare-exchange"


def _same_word(ref: Ref, loc, other: Ref | None) -> bool:
    """Whether a write through `ref` may hit the word a read of `loc` through `other`
    reads: same variable and member path, and the same index expressions (a write to
    `flags[me]` does not change `flags[me - 1u]`)."""
    if not ref.loc.overlaps(loc):
        return False
    if other is None or not ref.index_texts or not other.index_texts:
        return True
    return ref.index_texts == other.index_texts


def waited_storage(walker, rec: LoopRecord) -> list[Source]:
    """Memory reads that decide the loop's exit when some way around it makes no
    progress of its own: the loop then waits for someone else to change memory.

    Progress is a counter the loop advances itself (a variable assigned from its own
    value, not from what the loop waits for) tested by an exit, or a write by the loop
    of the very word it waits on. Exchanges are not progress: they are how a lock waits.
    """
    exit_conds = [cond for conds in loops.exits(rec.node) for cond in conds]
    exit_reads = set()
    cond_vars = set()
    for cond in exit_conds:
        for src in walker.cond_deps.get(id(cond), EMPTY):
            if src.kind == "var":
                cond_vars.add(src.name)
                continue
            src = src.direct()
            if src.awaitable and src in rec.created_loads and src not in walker.lock_free:
                if rec.barrier and src.loc.space == "workgroup":
                    continue  # the invocations it waits for meet it at the barrier
                exit_reads.add(src)
    if not exit_reads:
        return []
    # variables the awaited reads' addresses come from: a loop that moves them walks
    # through memory (a list, a search) rather than waiting on one word
    address_vars = set()
    for src in exit_reads:
        ref = walker.load_refs.get(src)
        if ref is not None:
            # (not a variable seen through workgroup memory: the address does not follow it)
            address_vars |= {s.name for s in ref.index_deps if s.kind == "var" and not s.memory}
    modified = {a[1] for a in rec.assignments} - rec.declared
    progress: dict[int, frozenset] = {}

    def advance(stmt_id, token):
        progress[stmt_id] = progress.get(stmt_id, frozenset()) | {token}

    for stmt_id, k, reads, compound, loads in rec.assignments:
        if k not in modified or not (compound or k in reads):
            continue
        if k not in address_vars and any(src.direct() in exit_reads for src in loads):
            continue  # computed from what the loop waits for: still waiting
        advance(stmt_id, k)
    for stmt_id, keys in rec.pointer_calls:
        for k in keys & modified:
            advance(stmt_id, k)
    for stmt_id, ref, op, _ in rec.writes:
        if not _moves(op):
            continue
        if any(_same_word(ref, src.loc, walker.load_refs.get(src)) for src in exit_reads):
            advance(stmt_id, SELF_WRITE)
    # a counter kept in workgroup memory (`s_back -= 1u` by invocation 0, the look-back's
    # index the workgroup shares) that an exit depends on: progress like a variable's
    tested_roots = {src.loc.root for cond in exit_conds for src in walker.cond_deps.get(id(cond), EMPTY)
                    if src.kind == "load" and src.loc is not None and src.loc.space == "workgroup"}
    for stmt_id, root in _workgroup_steps(rec, tested_roots):
        advance(stmt_id, "workgroup:" + root)
        cond_vars.add("workgroup:" + root)
    goals = cond_vars | {SELF_WRITE}
    collective = frozenset()
    exit_deps = EMPTY.union(*(walker.cond_deps.get(id(cond), EMPTY) for cond in exit_conds))
    if not any(s.nonuniform for s in exit_deps) or (
            rec.barrier and same_for_the_workgroup(walker, exit_conds, exit_deps)):
        collective = frozenset(
            id(node) for node in rec.node.iter_subtrees() if node.data == "if_stmt"
            and _picks_invocations(walker.cond_deps.get(id(node.children[1]), EMPTY)))
    retries = spurious_failure_branches(walker, rec, exit_reads)
    facts = WalkFacts(walker, rec)
    for node_id, branch in self_exit_branches(rec.node, facts).items():
        if node_id == id(rec.node):
            advance(node_id, SELF_EXIT)  # (the loop's own test: every way around passes it)
        else:
            retries.setdefault(node_id, (branch, frozenset({SELF_EXIT})))
    goals = goals | {SELF_EXIT}
    if all(path & goals for path in loops.back_edge_paths(rec.node, progress, collective, retries)):
        return []
    # what each way knows: a way that cannot be taken, or that ends the loop at its next
    # test (a round that found the lock cleared, by someone or by the loop's own store of
    # the workgroup's lock word), does not go around
    ways = rounds.ways_around(rec.node, progress, facts, collective, retries)
    if ways is not None and all(path & goals for path in ways):
        return []
    # a state machine over constants, entered knowing where it starts: every cycle of its
    # rounds goes through an exchange that sets its own exit
    entry = _entry_knowledge(walker, rec, facts)
    if entry is not None and rounds.rounds_end(rec.node, progress, facts, entry, frozenset({SELF_EXIT}),
                                              collective, retries):
        return []
    return sorted(exit_reads, key=lambda s: (s.site.line, s.site.column))


def _workgroup_steps(rec: LoopRecord, roots: set) -> list:
    """(statement, root) for each statement of the loop's own function that steps a
    workgroup variable in `roots` by a constant (`s_back -= 1u`, `s_n++`, `s_k = s_k + 2u`)."""
    written = {id_ for id_, ref, _, _ in rec.writes if ref.loc is not None and ref.loc.root in roots}
    out = []
    for node in subtrees(rec.node):
        if id(node) not in written:
            continue
        target, step = node.children[0], None
        if node.data in ("increment", "decrement"):
            step = True
        elif node.data == "compound_assign" and str(node.children[1]) in ("+=", "-="):
            step = _constant_text(node.children[2])
        elif node.data == "assign" and isinstance(node.children[1], Tree) and node.children[1].data == "binop":
            a, op, b = node.children[1].children
            step = str(op) in ("+", "-") and _same_name(a, target) and _constant_text(b)
        name = _same_name(target, target)
        if step and name in roots:
            out.append((id(node), name))
    return out


def _same_name(node, target):
    """The name of `target` when `node` is that same plain identifier, else None."""
    if isinstance(node, Tree) and node.data in ("ident_expr", "lhs_ident") and isinstance(target, Tree) \
            and target.data in ("ident_expr", "lhs_ident") and str(node.children[0]) == str(target.children[0]):
        return str(node.children[0])
    return None


def _constant_text(node) -> bool:
    """A literal (or a literal's `u32()`): the step does not come from memory."""
    return isinstance(node, Tree) and node.data == "literal"


# the way through an exchange's result that its own store rules out next time
SELF_EXIT = "<the exchange's own store ends it>"


def self_exit_branches(loop: Tree, facts) -> dict:
    """The branches an exchange writing a constant W sets its own exit on: `if (c)` (or the
    loop's own condition) where `c` compares the value `atomicExchange(&w, W)` returns and
    would take the other branch were that value W. The exchange left W in the word, so the
    next round takes that other branch unless another invocation stored into the word in
    between: the branch can only be taken again and again while someone else keeps storing,
    never waiting for anyone. (The word must be the same each round: its address reads
    nothing the loop assigns.) Maps the statement (the loop itself for its condition) to the
    branch that gets the token (0: then, 1: else)."""
    assigned = assigned_names(loop)
    cond, _, _, break_if, _ = loops.loop_parts(loop)
    tests = [(loop, cond, 0)] if cond is not None else []
    if break_if is not None:
        tests.append((loop, break_if, 1))
    tests += [(n, n.children[1], None) for n in loop.iter_subtrees() if n.data == "if_stmt"]
    out = {}
    for stmt, test, around in tests:
        for call in test.iter_subtrees():
            if call.data != "call_expr" or str(call.children[0]) != "atomicExchange":
                continue
            args = call.children[2].children[0]
            if args is None or len(args.children) != 2 or rounds.address_names(args.children[0]) & assigned:
                continue
            written = facts.const(args.children[1])
            if written is None or not _only_stores(facts, args.children[0], written):
                continue
            outcome = rounds.evaluate(test, ({}, {}), _Returning(facts, call, written))
            if not isinstance(outcome, bool):
                continue
            if around is None:
                out[id(stmt)] = 1 if outcome else 0  # the branch W does not take
            elif outcome != (around == 0):
                out[id(stmt)] = around  # were it W, the loop would end at this test
    return out


def _only_stores(facts, pointer, value: int) -> bool:
    """Whether every store the loop makes into the word `pointer` points at (any index of
    it) writes `value`: no store of the loop's own undoes what its exchange left there."""
    node = pointer.children[1] if isinstance(pointer, Tree) and pointer.data == "unop" else pointer
    members = []
    while isinstance(node, Tree) and node.data in ("index", "member"):
        if node.data == "member":
            members.append(str(node.children[1]))
        node = node.children[0]
    if not (isinstance(node, Tree) and node.data == "ident_expr"):
        return False
    loc = facts.walker.module.globals.get(str(node.children[0]))
    if loc is None:
        return False
    for name in reversed(members):
        loc = loc.member(name)
    return all(op in ("atomicExchange", "atomicStore", None) and const == value
               for _, ref, op, const in facts.rec.writes if ref.loc.overlaps(loc))


class _Returning:
    """`facts` where one exchange call returns `value`."""

    def __init__(self, facts, call, value: int):
        self.facts, self.call, self.value = facts, call, value

    def const(self, node):
        return self.value if node is self.call else self.facts.const(node)

    def __getattr__(self, name):
        return getattr(self.facts, name)


def _entry_knowledge(walker, rec: LoopRecord, facts):
    for fn in walker.module.functions.values():
        body = fn.node.children[-1]
        if any(n is rec.node for n in subtrees(body)):
            return rounds.entry_knowledge(rounds.block_statements(body), rec.node, facts)
    return None


class WalkFacts(rounds.PathFacts):
    """`rounds.PathFacts` from the walk of one loop."""

    def __init__(self, walker, rec: LoopRecord):
        self.walker, self.rec = walker, rec
        self._settled: dict = {}

    def const(self, node):
        return self.walker._const(node)

    def text(self, node) -> str:
        return self.walker._index_text(node)

    def is_global(self, name: str) -> bool:
        return name in self.walker.module.globals

    def is_function(self, name: str) -> bool:
        return name in self.walker.module.functions

    def settled(self, name: str):
        if name not in self._settled:
            self._settled[name] = settled_value(self.walker, self.rec, name)
        return self._settled[name]


def settled_value(walker, rec: LoopRecord, name: str) -> int | None:
    """The constant a workgroup variable holds for every invocation once the loop stored it
    and a barrier passed: every store to it inside the loop is that constant, to the whole
    variable, and every store before the loop is followed by a barrier before the loop
    (so none of them is still pending when an invocation stores it in the loop). None when
    not so."""
    loc = walker.module.globals.get(name)
    if loc is None or loc.space != "workgroup":
        return None
    values = set()
    for _, ref, op, const in rec.writes:
        if ref.loc.root != name:
            continue
        if op is not None or const is None or ref.index_texts or ref.loc.path:
            return None
        values.add(const)
    if len(values) != 1:
        return None
    before = [a.seq for a in walker.result.accesses
              if a.kind in ("write", "rmw") and a.loc.root == name and a.seq < rec.seq_start]
    if before and not any(b.counted and max(before) < b.seq < rec.seq_start for b in walker.result.barriers):
        return None
    return values.pop()


def spurious_failure_branches(walker, rec: LoopRecord, exit_reads) -> dict:
    """The branches of `if (r.old_value != EXPECTED)` (the else) or `== EXPECTED` (the
    then) on an awaited compare-exchange `r`: there the exchange failed although the
    word held what it expected, a spurious failure of the weak exchange, and trying
    again waits for no one (a slot search that moves on when the slot is taken)."""
    out = {}
    for node in rec.node.iter_subtrees():
        if node.data != "if_stmt":
            continue
        cond = node.children[1]
        if not (isinstance(cond, Tree) and cond.data == "binop" and str(cond.children[1]) in ("!=", "==")):
            continue
        for side, other in ((cond.children[0], cond.children[2]), (cond.children[2], cond.children[0])):
            if not (isinstance(side, Tree) and side.data == "member" and str(side.children[-1]) == "old_value"):
                continue
            value = walker._const(other)
            cas = {s.direct() for s in walker.cond_deps.get(id(cond), EMPTY)} & exit_reads
            if value is not None and any(walker.cas_expected.get(c) == value for c in cas):
                out[id(node)] = (1 if str(cond.children[1]) == "!=" else 0, frozenset({SELF_WRITE}))
    return out


def same_for_the_workgroup(walker, conds, deps: frozenset) -> bool:
    """Whether loop exits with these conditions read the same for every invocation of
    the workgroup, in a loop with a workgroup barrier: they read workgroup memory at
    one address each (a lock word that one invocation sets and all read after the
    barrier, as a `workgroupUniformLoad` would), and what differs between invocations
    reaches them only through what was stored there."""
    spans = [(c.meta.line, c.meta.column, c.meta.end_line, c.meta.end_column) for c in conds
             if isinstance(c, Tree) and not c.meta.empty]

    def in_conditions(site) -> bool:
        return site is not None and any(
            (l0, c0) <= (site.line, site.column) <= (l1, c1) for l0, c0, l1, c1 in spans)

    direct = {s.direct() for s in deps if s.kind == "load" and s.loc is not None
              and s.loc.space == "workgroup" and in_conditions(s.site)}
    if not direct:
        return False
    roots, through_memory = [], set()
    for src in direct:
        ref = walker.load_refs.get(src)
        if ref is None or any(d.nonuniform for d in ref.index_deps):
            return False  # each invocation reads its own word
        roots.append(src.loc.root)
    seen = set()
    while roots:  # what was stored there, and what was stored where that was read
        root = roots.pop()
        if root in seen:
            continue
        seen.add(root)
        for d in stored_ever(walker.mem_deps.get(root)):
            d = d.direct()
            through_memory.add(d)
            if d.kind == "load" and d.loc is not None and d.loc.space == "workgroup":
                roots.append(d.loc.root)
    return all(not s.nonuniform or s.direct() in direct or s.direct() in through_memory
               for s in deps)
