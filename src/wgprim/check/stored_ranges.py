"""The range of a value loaded from storage, when every store of it in the module is bounded.

`info.even_pass = (info.even_pass + 1u) % 2u` is the only store of `even_pass`: a load of
it is 0 or 1, so `info.even_pass * 2u * RADIX + lid` stays in the first histograms. The
stores are read from the source alone (every function of the module, whichever entry
point runs it): a plain assignment whose value has a bounded range (constants, `% C`,
`& C`, `min(x, C)` of an unsigned `x`, `select` of bounded values, sums and products of
them). A location that any atomic touches, that is assigned otherwise (`+=`, `++`, an
unbounded value, the whole struct around it) or whose address is taken (`&info`) has no
range. What the host wrote before the first dispatch is taken to obey the same bound.
"""
from __future__ import annotations

from lark import Tree

from . import indices
from .symbols import ident_name
from .trees import subtrees

def location(module, node):
    """(root, member path) of a reference to a module-scope storage variable, indices
    dropped; None for anything else."""
    path = []
    while isinstance(node, Tree) and node.data in ("index", "member", "unop"):
        if node.data == "member":
            path.append(str(node.children[1]))
        node = node.children[-1] if node.data == "unop" else node.children[0]
    name = ident_name(node)
    loc = module.globals.get(name) if name is not None else None
    if loc is None or loc.space != "storage":
        return None
    return name, tuple(reversed(path))


class StoredRanges:
    def __init__(self, module, const, unsigned_literal):
        self.module, self.const, self.unsigned_literal = module, const, unsigned_literal
        self.stores: dict = {}  # root -> [(member path, (lo, hi) or None: no range)]
        for fn in module.functions.values():
            for node in subtrees(fn.node):
                self._visit(node)

    def _visit(self, node: Tree):
        if node.data == "assign":
            self._store(node.children[0], lambda: self._range(node.children[1]))
        elif node.data in ("compound_assign", "increment", "decrement"):
            self._store(node.children[0], lambda: None)
        elif node.data == "unop" and str(node.children[0]) == "&":
            self._store(node.children[1], lambda: None)  # an atomic's pointer, or a call's

    def _store(self, target, span):
        where = location(self.module, target)
        if where is not None:
            self.stores.setdefault(where[0], []).append((where[1], span()))

    def _range(self, node):
        """(lo, hi) of a value that a bounded expression computes, else None."""
        c = self.const(node)
        if c is not None:
            return (c, c)
        if not isinstance(node, Tree):
            return None
        if node.data == "binop":
            a, op, b = node.children
            op = str(op)
            cb = self.const(b)
            if op == "%" and cb is not None and cb > 0 and self.unsigned_literal(b):
                return (0, cb - 1)
            if op == "&" and cb is not None and cb >= 0:
                return (0, cb)
            if op in ("+", "*"):
                ra, rb = self._range(a), self._range(b)
                if ra is None or rb is None or min(ra[0], rb[0]) < 0:
                    return None
                return (ra[0] + rb[0], ra[1] + rb[1]) if op == "+" else (ra[0] * rb[0], ra[1] * rb[1])
            return None
        if node.data == "call_expr":
            name = str(node.children[0])
            args = node.children[2].children[0]
            args = list(args.children) if args is not None else []
            if name == "select" and len(args) == 3:
                ra, rb = self._range(args[0]), self._range(args[1])
                return None if ra is None or rb is None else (min(ra[0], rb[0]), max(ra[1], rb[1]))
            if name == "min" and len(args) == 2:
                for x, bound in ((args[0], args[1]), (args[1], args[0])):
                    cb = self.const(bound)
                    if cb is not None and cb >= 0 and self.unsigned_literal(bound):
                        return (0, cb)
            return None
        return None

    def shape(self, root: str, path: tuple) -> indices.Shape | None:
        """The range of a load of `root.path` as an index shape, or None when not bounded
        (no store in the module: only the host writes it; or a store without a range, or of
        the struct around it or a part of it)."""
        stores = [(p, span) for p, span in self.stores.get(root, ())
                  if p[:len(path)] == path or path[:len(p)] == p]
        if not stores or any(p != path or span is None for p, span in stores):
            return None
        lo, hi = min(span[0] for _, span in stores), max(span[1] for _, span in stores)
        return indices.span(lo, hi, True) if lo >= 0 else None
