"""Phases of one entry point selected by a value fixed for the dispatch.

A kernel run as several dispatches, each with its own `phase` in a uniform buffer, a push
constant or an `override`, branches on that selector: `if (params.phase == 1u) { write }`
and `if (params.phase == 3u) { read }` never run in the same dispatch, whatever the
workgroups do. `PhaseMap` tells, for a place in the source and the calls on the way to it
(an access records them), which selector values the enclosing branches require, and
whether two places exclude each other.
"""
from __future__ import annotations

from lark import Tree

from .symbols import ident_name
from .trees import subtrees

# address spaces of module-scope variables that are the same for every invocation of a dispatch
_DISPATCH_SPACES = ("uniform", "push_constant")


class PhaseMap:
    def __init__(self, module, const):
        """`const` evaluates a constant expression (None when it is not one)."""
        self.module, self.const = module, const
        self.spans: list[tuple] = []  # (start, end, selector, value): a branch and what it requires
        # (start, end, component, value): a branch only workgroup `value` (along `component`) runs
        self.workgroup_spans: list[tuple] = []
        for fn in module.functions.values():
            self._ids = {name for name, _, builtin in fn.params if builtin == "workgroup_id"}
            for node in subtrees(fn.node):
                if node.data == "if_stmt":
                    self._if(node)
                elif node.data == "switch_stmt":
                    self._switch(node)

    def _if(self, node: Tree):
        _attrs, cond, then, _other = node.children
        for test in _conjuncts(cond):
            fact = self._equality(test)
            if fact is not None:
                self._add(then, *fact)
            one = self._one_workgroup(test)
            if one is not None and not then.meta.empty:
                m = then.meta
                self.workgroup_spans.append(((m.line, m.column), (m.end_line, m.end_column)) + one)

    def _one_workgroup(self, test):
        """(component, k) for `wid.x == k` on the entry point's workgroup_id `wid`."""
        if not (isinstance(test, Tree) and test.data == "binop" and str(test.children[1]) == "=="):
            return None
        a, _, b = test.children
        for side, other in ((a, b), (b, a)):
            if (isinstance(side, Tree) and side.data == "member" and ident_name(side.children[0]) in self._ids
                    and self.const(other) is not None):
                return str(side.children[1]), self.const(other)
        return None

    def workgroup_of(self, site) -> dict:
        """component -> the one workgroup index the branches around `site` allow."""
        here = (site.line, site.column)
        return {c: k for start, end, c, k in self.workgroup_spans if start <= here <= end}

    def _switch(self, node: Tree):
        selector = self._selector(node.children[1])
        if selector is None:
            return
        for clause in node.children[3:]:
            if clause.data != "case_clause":
                continue
            values = [self.const(s) for s in clause.children[0].children if isinstance(s, Tree)]
            if len(values) == 1 and values[0] is not None:  # one value, no `default`
                self._add(clause.children[-1], selector, values[0])

    def _add(self, block: Tree, selector: str, value: int):
        if isinstance(block, Tree) and not block.meta.empty:
            m = block.meta
            self.spans.append(((m.line, m.column), (m.end_line, m.end_column), selector, value))

    def _equality(self, test):
        if not (isinstance(test, Tree) and test.data == "binop" and str(test.children[1]) == "=="):
            return None
        a, _, b = test.children
        for side, other in ((a, b), (b, a)):
            selector = self._selector(side)
            value = self.const(other)
            if selector is not None and value is not None:
                return selector, value
        return None

    def _selector(self, node) -> str | None:
        """`params.phase` (a member of a uniform or push-constant variable, at any depth) or an
        `override`: a value the same for the whole dispatch. Its text names it."""
        path = []
        while isinstance(node, Tree) and node.data == "member":
            path.append(str(node.children[1]))
            node = node.children[0]
        name = ident_name(node)
        if name is None:
            return None
        loc = self.module.globals.get(name)
        if loc is not None and loc.space in _DISPATCH_SPACES:
            return ".".join([name] + path[::-1])
        if not path and name in self.module.constants:
            return name
        return None

    def required(self, places) -> dict:
        """selector -> the values the branches around `places` ((line, column) each: a place
        and the calls on the way to it) require."""
        out = {}
        for here in places:
            for start, end, selector, value in self.spans:
                if start <= here <= end:
                    out.setdefault(selector, set()).add(value)
        return out

    def exclusive(self, a, b) -> bool:
        """Whether the places `a` and `b` (lists of (line, column), see `required`) can never
        run in the same dispatch: branches around them require different values of one
        selector."""
        ra, rb = self.required(a), self.required(b)
        return any(not ra[s] & rb[s] for s in ra.keys() & rb.keys())


def _conjuncts(node) -> list:
    if isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "&&":
        return _conjuncts(node.children[0]) + _conjuncts(node.children[2])
    return [node]
