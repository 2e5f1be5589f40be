"""The shape of a loop: its exits, its conditions, the paths that go around it, its counter.

These are syntactic questions about one loop statement of the tree; the dataflow walk
supplies what the conditions depend on and which assignments make progress.
"""
from __future__ import annotations

from lark import Tree

LOOP_KINDS = ("loop_stmt", "for_stmt", "while_stmt")


def trees_of(children):
    return [c for c in children if isinstance(c, Tree)]


def loop_parts(node: Tree):
    """(condition, body statements, continuing statements, break-if condition, update)."""
    if node.data == "loop_stmt":
        *stmts, continuing = node.children[2:]
        cont, break_if = [], None
        if continuing is not None:
            *cont, bif = continuing.children[1:]
            break_if = bif.children[0] if bif is not None else None
        return None, trees_of(stmts), trees_of(cont), break_if, None
    if node.data == "for_stmt":
        _, _init, cond, update, body = node.children
        return cond, trees_of(body.children[1:]), [], None, update
    _, cond, body = node.children  # while_stmt
    return cond, trees_of(body.children[1:]), [], None, None


def branches(stmt: Tree):
    """(condition node, list of statement lists) for if and switch; None otherwise."""
    if stmt.data == "if_stmt":
        _, cond, then, other = stmt.children
        lists = [trees_of(then.children[1:])]
        if other is None:
            lists.append([])
        elif other.data == "if_stmt":
            lists.append([other])
        else:
            lists.append(trees_of(other.children[1:]))
        return cond, lists
    if stmt.data == "switch_stmt":
        lists = [trees_of(clause.children[-1].children[1:]) for clause in stmt.children[3:]]
        if not any(c.data == "default_clause" or _has_default_selector(c) for c in stmt.children[3:]):
            lists.append([])
        return stmt.children[1], lists
    return None


def _has_default_selector(clause: Tree) -> bool:
    return clause.data == "case_clause" and any(
        isinstance(s, Tree) and s.data == "default_selector" for s in clause.children[0].children)


def block_of(stmt: Tree):
    return trees_of(stmt.children[1:]) if stmt.data == "compound" else None


def exits(loop: Tree) -> list[list[Tree]]:
    """Every way out of the loop, as the list of conditions that decide it."""
    cond, body, cont, break_if, _ = loop_parts(loop)
    found: list[list[Tree]] = []
    if cond is not None:
        found.append([cond])
    if break_if is not None:
        found.append([break_if])

    def visit(stmts, conds, in_nested_loop):
        conds = list(conds)
        for s in stmts:
            if s.data == "break_stmt" and not in_nested_loop:
                found.append(list(conds))
            elif s.data in ("return_stmt", "discard_stmt"):
                found.append(list(conds))
            elif s.data in LOOP_KINDS:
                c, b, k, _, _ = loop_parts(s)
                visit(b + k, conds + ([c] if c is not None else []), True)
            elif (br := branches(s)) is not None:
                # `break` inside a switch leaves the switch, not the loop
                inner = in_nested_loop or s.data == "switch_stmt"
                for lst in br[1]:
                    visit(lst, conds + [br[0]], inner)
                if _may_jump(s):
                    # what follows runs only when this branch did not `continue` (or leave):
                    # its condition decides the exits below too
                    conds.append(br[0])
            elif (blk := block_of(s)) is not None:
                visit(blk, conds, in_nested_loop)

    visit(body + cont, [], False)
    return found


def _may_jump(stmt: Tree) -> bool:
    """Whether a branch statement can `continue`, `break` or `return` out of its loop."""
    def walk(node, in_loop, in_switch):
        for child in node.children:
            if not isinstance(child, Tree):
                continue
            if child.data == "continue_stmt" and not in_loop:
                return True
            if child.data == "break_stmt" and not in_loop and not in_switch:
                return True
            if child.data in ("return_stmt", "discard_stmt"):
                return True
            if walk(child, in_loop or child.data in LOOP_KINDS, in_switch or child.data == "switch_stmt"):
                return True
        return False
    return walk(stmt, False, stmt.data == "switch_stmt")


def back_edge_paths(loop: Tree, progress: dict[int, frozenset],
                    collective: frozenset = frozenset(),
                    retries: dict | None = None) -> set[frozenset]:
    """The ways around the loop, each as the set of variables it makes progress on.

    `progress` maps a statement (by id) to the variables it advances. A path ends at
    `break`/`return`; it goes around at `continue` or at the end of the body, then runs
    the continuing block and the for-loop update.

    `collective` holds the `if` statements (by id) that pick invocations of a workgroup
    that goes around the loop together (`if (lid == 0u)` in a loop whose exit is uniform):
    the workgroup runs every branch of them, so their progress counts for everyone.

    `retries` maps an `if` statement (by id) to (branch index, tokens): the ways through
    that branch make that progress (the branch a weak compare-exchange takes when it
    failed while the word held what it expected: a spurious failure, retried at once).
    """
    retries = retries or {}
    _, body, cont, _, update = loop_parts(loop)

    def nested_progress(node):
        out = frozenset()
        for sub in node.iter_subtrees():
            out |= progress.get(id(sub), frozenset())
        return out

    def run(stmts, paths, in_switch=False):
        """Returns (paths that fall through, paths that continue)."""
        back: set[frozenset] = set()
        for s in stmts:
            if not paths:
                break
            if s.data == "break_stmt" and in_switch:
                return paths, back
            if s.data in ("break_stmt", "return_stmt", "discard_stmt"):
                return set(), back
            if s.data == "continue_stmt":
                return set(), back | paths
            if s.data in LOOP_KINDS:
                extra = nested_progress(s)
                paths = {p | extra for p in paths}
            elif (br := branches(s)) is not None:
                extra = progress.get(id(s), frozenset())  # the condition's own effects
                if extra:
                    paths = {p | extra for p in paths}
                new_paths = set()
                falls = []
                retry = retries.get(id(s))
                for i, lst in enumerate(br[1]):
                    start = {p | retry[1] for p in paths} if retry and retry[0] == i else paths
                    fall, cont_paths = run(lst, start, in_switch or s.data == "switch_stmt")
                    new_paths |= fall
                    falls.append(fall)
                    back |= cont_paths
                if id(s) in collective and all(falls):
                    new_paths = {a | b for a in falls[0] for b in falls[1]}
                paths = new_paths
            elif (blk := block_of(s)) is not None:
                paths, cont_paths = run(blk, paths, in_switch)
                back |= cont_paths
            else:
                extra = progress.get(id(s), frozenset())
                if extra:
                    paths = {p | extra for p in paths}
        return paths, back

    fall, back = run(body, {progress.get(id(loop), frozenset())})  # the loop condition's effects
    around = fall | back
    around, _ = run(cont, around)  # a break-if only leaves conditionally: paths go on
    if update is not None:
        extra = progress.get(id(update), frozenset())
        around = {p | extra for p in around}
    return around


def _name(node) -> str | None:
    if isinstance(node, Tree) and node.data == "ident_expr":
        return str(node.children[0])
    return None


def counter_range(loop: Tree, const, assigned) -> tuple[str, int, int] | None:
    """(name, lo, hi) when a `for` loop's variable runs over constants inside its body:
    `for (var i = C0; i < C1; i++)` (or `<=`, `C1 > i`, `i += c` and `i = i + c` for a
    constant c > 0) whose body never assigns `i` nor takes its address. `const` evaluates a
    constant expression (None when it is not one), `assigned` names what a node assigns."""
    if loop.data != "for_stmt":
        return None
    _, init, cond, update, body = loop.children
    if not (isinstance(init, Tree) and init.data == "var_decl" and init.children[2] is not None):
        return None
    name = str(init.children[1].children[0])
    lo = const(init.children[2])
    if lo is None or not (isinstance(cond, Tree) and cond.data == "binop"):
        return None
    left, op, right = cond.children
    op = str(op)
    if _name(left) == name and op in ("<", "<="):
        bound, inclusive = const(right), op == "<="
    elif _name(right) == name and op in (">", ">="):
        bound, inclusive = const(left), op == ">="
    else:
        return None
    if bound is None or not isinstance(update, Tree):
        return None
    if update.data == "increment":
        step = 1 if str(update.children[1]) == "++" else None
    elif update.data == "compound_assign" and str(update.children[1]) == "+=":
        step = const(update.children[2])
    elif update.data == "assign" and isinstance(update.children[1], Tree) and update.children[1].data == "binop":
        a, plus, b = update.children[1].children
        step = const(b) if _name(a) == name and str(plus) == "+" else None
    else:
        return None
    if _name(update.children[0]) != name or step is None or step <= 0 or name in assigned(body):
        return None
    hi = bound if inclusive else bound - 1
    return (name, lo, hi) if lo <= hi else None
