"""Look-back walks: loops that step back over predecessor workgroups' published states,
and what bounds how far they go.

A loop that does not wait (`progress`) still runs a number of rounds, and some drivers
count them: Mesa's llvmpipe ends every loop of an invocation silently once it has run
65,535 iterations in all. A look-back's walk from a workgroup's own tile back towards
tile 0 has as many steps as there are tiles before it, and each step may run further
loops (polls, a fallback that reduces the predecessor's tile): its total grows with the
dispatch. This module finds those walks once the walk of the entry point has converged;
the `lookback-depth` rule reports them.

A loop is a look-back walk when, inside it (its callees included), an atomic read of
read_write storage has an index that depends on
- the workgroup's identity (`workgroup_id`, `global_invocation_id`, or a tile claimed with
  an atomic add), so the walk starts at the workgroup's own place, and
- a value the loop carries from round to round (a variable it assigns, or workgroup
  memory it stores) that it steps backwards: decreased (`back -= 1u`, `end = end - k`)
  or subtracted from the start (`state[tile - k]`).
Its trip count is bounded by a constant when every way around it advances a counter that
the loop never resets, that starts from no id nor memory, and that an exit compares with a
constant or an `override` (`for (var k = 1u; k <= WINDOW; k++)`).
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Tree

from . import loops
from .locations import stored_ever
from .model import EMPTY, WORKGROUP_IDENTITY_BUILTINS, Site, Source
from .symbols import ident_name
from .trees import subtrees

_COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
# atomic read-modify-writes whose returned value is a claimed tile (a counter's next value)
_CLAIMS = ("atomicAdd", "atomicSub", "atomicMax")


@dataclass
class LookbackWalk:
    """A loop that walks back over other workgroups' states, bounded only by the dispatch."""

    key: tuple
    site: Site
    read: Source  # an atomic read of a predecessor's state, made by the walk
    inner: list  # sites of the loops that run inside each round (polls, a fallback)


def var_name(key: str) -> str:
    """The source name of a local variable's key (`fn:name@line:col`)."""
    return key.split(":", 1)[-1].rsplit("@", 1)[0]


def lookback_walks(walker) -> list[LookbackWalk]:
    """The look-back walks of the entry point whose trip count only the dispatch bounds,
    outermost only (a walk inside another is part of its rounds)."""
    waiting = {loop.key for loop in walker.result.spin_loops}
    found = []
    for rec in walker.loops_seen:
        if rec.key in waiting:
            continue  # a wait: spin-wait (or global-barrier) says more
        read = _walk_read(walker, rec)
        if read is None or _constant_bound(walker, rec):
            continue
        inner = sorted({Site.of(other.node) for other in walker.loops_seen
                        if other is not rec and rec.seq_start <= other.seq_start
                        and other.seq_end <= rec.seq_end},
                       key=lambda s: (s.line, s.column))
        found.append((rec, LookbackWalk(rec.key, Site.of(rec.node), read, inner)))
    return [walk for rec, walk in found
            if not any(outer is not rec and outer.seq_start <= rec.seq_start and rec.seq_end <= outer.seq_end
                       for outer, _ in found)]


def _walk_read(walker, rec) -> Source | None:
    """An atomic read of another workgroup's state that the loop walks back over."""
    carried_vars = {a[1] for a in rec.assignments} - rec.declared
    carried_mem = {ref.loc.root for _, ref, _, _ in rec.writes
                   if ref.loc is not None and ref.loc.space == "workgroup"}
    backwards = _stepped_back(walker.module, rec.node)
    walk_vars = {k for k in carried_vars if var_name(k) in backwards}
    walk_mem = carried_mem & backwards
    if not walk_vars and not walk_mem:
        return None
    # what the loop's backward steps stored into workgroup memory: an index read from there
    # carries it (marked as seen through memory)
    through_mem = {d.direct() for root in walk_mem for d in stored_ever(walker.mem_deps.get(root))}
    for access in walker.result.accesses:
        if rec.key not in access.loops or not access.atomic or not access.loc.writable_storage:
            continue
        if not (access.kind == "read" or (access.kind == "rmw" and access.operand_const == 0
                                          and access.op in ("atomicAdd", "atomicOr"))):
            continue
        deps = [s for s in access.ref.index_deps if not s.indirect]
        moves = any(s.kind == "var" and s.name in walk_vars
                    or s.kind == "load" and s.loc is not None and s.loc.space == "workgroup"
                    and s.loc.root in walk_mem
                    or s.memory and s.kind in ("var", "load") and s.direct() in through_mem for s in deps)
        if moves and any(_identity(s) for s in deps):
            return access.source if access.source is not None else Source(
                "load", str(access.loc), access.loc, atomic=True, rmw=access.op, site=access.site)
    return None


def _identity(src: Source) -> bool:
    """What tells this workgroup's place among the others: its id, or a tile it claimed."""
    if src.kind == "builtin":
        return src.name in WORKGROUP_IDENTITY_BUILTINS
    return (src.kind == "load" and src.rmw in _CLAIMS and src.loc is not None
            and src.loc.space == "storage")


def _region(module, node: Tree) -> list:
    """Every node of the loop and of the functions it calls (transitively)."""
    nodes, seen, todo = [], set(), [node]
    while todo:
        n = todo.pop()
        for sub in subtrees(n):
            nodes.append(sub)
            if sub.data in ("call_expr", "call_stmt"):
                callee = str(sub.children[0])
                fn = module.functions.get(callee)
                if fn is not None and callee not in seen:
                    seen.add(callee)
                    todo.append(fn.node)
    return nodes


def _target(node) -> str | None:
    while isinstance(node, Tree) and node.data in ("index", "member", "unop"):
        node = node.children[-1] if node.data == "unop" else node.children[0]
    return ident_name(node)


def _stepped_back(module, loop: Tree) -> set:
    """Names the loop (with its callees) steps backwards: decreased (`x -= d`, `x--`,
    `x = y - d`) or subtracted (`tile - k`)."""
    names = set()
    for sub in _region(module, loop):
        if sub.data == "decrement" or (sub.data == "compound_assign" and str(sub.children[1]) == "-="):
            names.add(_target(sub.children[0]))
        elif sub.data == "assign" and any(isinstance(n, Tree) and n.data == "binop" and str(n.children[1]) == "-"
                                          for n in subtrees(sub.children[1])):
            names.add(_target(sub.children[0]))
        elif sub.data == "binop" and str(sub.children[1]) == "-":
            names |= {ident_name(n) for n in subtrees(sub.children[2]) if n.data == "ident_expr"}
    names.discard(None)
    return names


def _constant_bound(walker, rec) -> bool:
    """Whether every way around the loop advances a counter that an exit compares with a
    constant: the loop then runs at most about that many rounds, whatever the dispatch."""
    assigned = {}
    for stmt_id, key, reads, compound, _ in rec.assignments:
        assigned.setdefault(key, []).append((stmt_id, compound or key in reads))
    counters = {}
    for key, stmts in assigned.items():
        if key in rec.declared or not all(advances for _, advances in stmts):
            continue  # made anew each round, or reset: it counts a part of the walk only
        if not _fresh(walker, key, set()):
            continue
        if _constant_exit(walker, rec.node, var_name(key)):
            counters[key] = {stmt_id for stmt_id, _ in stmts}
    if not counters:
        return False
    progress: dict[int, frozenset] = {}
    for key, stmt_ids in counters.items():
        for stmt_id in stmt_ids:
            progress[stmt_id] = progress.get(stmt_id, frozenset()) | {key}
    goals = set(counters)
    return all(path & goals for path in loops.back_edge_paths(rec.node, progress))


def _fresh(walker, key: str, seen: set) -> bool:
    """Whether a variable starts from constants only: no id, no memory (so a counter of
    it counts rounds, not tiles)."""
    seen.add(key)
    for src in walker.var_deps.get(key, EMPTY):
        if src.indirect:
            continue  # the conditions it is advanced under: not its value
        if src.kind == "var":
            if src.name not in seen and not _fresh(walker, src.name, seen):
                return False
        elif src.kind in ("load", "builtin"):
            return False
    return True


def _constant_exit(walker, loop: Tree, name: str) -> bool:
    """Whether some exit of the loop is, on its own, `name` compared with a constant or an
    `override` (a conjunct of the loop's condition, or a disjunct of a `break`'s)."""
    cond, _, _, break_if, _ = loops.loop_parts(loop)
    tests = _split(cond, "&&") if cond is not None else []
    for conds in loops.exits(loop):
        if len(conds) == 1 and conds[0] is not cond and conds[0] is not break_if:
            tests += _split(conds[0], "||")  # `if (c) { break; }`: c alone decides
    if break_if is not None:
        tests += _split(break_if, "||")
    for test in tests:
        if not (isinstance(test, Tree) and test.data == "binop" and str(test.children[1]) in _COMPARISONS):
            continue
        a, _, b = test.children
        for mine, other in ((a, b), (b, a)):
            if ident_name(mine) == name and _dispatch_constant(walker, other):
                return True
    return False


def _split(node, op: str) -> list:
    if isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == op:
        return _split(node.children[0], op) + _split(node.children[2], op)
    return [node]


def _dispatch_constant(walker, node) -> bool:
    if walker._const(node) is not None:
        return True
    return all(n.data != "ident_expr" or str(n.children[0]) in walker.module.constants
               for n in subtrees(node)) and not any(n.data == "call_expr" for n in subtrees(node))
