"""Memoized searches of parse trees: every node under a node, the names assigned in it."""
from __future__ import annotations

from lark import Tree


_SUBTREES: dict = {}


def subtrees(node: Tree) -> list:
    """Every tree node under `node`, itself included, in no particular order (memoized:
    each function's body is searched several times)."""
    hit = _SUBTREES.get(id(node))
    if hit is None or hit[0] is not node:
        if len(_SUBTREES) > 20000:
            _SUBTREES.clear()
        hit = _SUBTREES[id(node)] = (node, list(node.iter_subtrees_topdown()))
    return hit[1]


_ASSIGNED: dict = {}


def assigned_names(node: Tree) -> frozenset:
    """Names assigned (or passed by pointer, `&x`) anywhere in `node` (memoized)."""
    names = _ASSIGNED.get(id(node))
    if names is None or names[0] is not node:
        found = set()
        for sub in subtrees(node):
            target = None
            if sub.data in ("assign", "compound_assign", "increment", "decrement"):
                target = sub.children[0]
            elif sub.data == "unop" and str(sub.children[0]) == "&":
                target = sub.children[1]
            while isinstance(target, Tree) and target.data in ("index", "member", "unop"):
                target = target.children[-1] if target.data == "unop" else target.children[0]
            if isinstance(target, Tree) and target.data == "ident_expr":
                found.add(str(target.children[0]))
        if len(_ASSIGNED) > 50000:
            _ASSIGNED.clear()
        names = _ASSIGNED[id(node)] = (node, frozenset(found))
    return names[1]
