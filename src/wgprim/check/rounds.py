"""Ways around a loop with what each knows, and state machines run round by round.

A way around (see `loops.back_edge_paths`) is followed here with what it knows: the
constants it assigned to local variables, the outcomes of the branches it took, and what a
uniform load reads of a workgroup variable the loop itself stores one constant into
(`PathFacts.settled`). Knowledge is `(known, outcomes)`: name -> value, and condition text
-> (outcome, the names it reads). With it, a way that cannot be taken, or that ends the
loop at its next test, is left out (`ways_around`); and a loop entered knowing where it
starts (`entry_knowledge`) is run state by state (`rounds_end`), a state being what the
ways know at each test.
"""
from __future__ import annotations

from lark import Tree

from .loops import LOOP_KINDS, block_of, branches, loop_parts, trees_of
from .trees import assigned_names


def block_statements(compound: Tree) -> list:
    return trees_of(compound.children[1:])


_MAX_WAYS = 256  # beyond that many ways around, what they know is not followed


class PathFacts:
    """What `ways_around` needs from the walk: constants, the text of a condition, and the
    workgroup variables whose every store inside the loop is one constant that a uniform
    load after it then reads (`settled`)."""

    def const(self, node) -> int | None:  # pragma: no cover - supplied by the walk
        raise NotImplementedError

    def text(self, node) -> str:  # pragma: no cover
        raise NotImplementedError

    def settled(self, name: str) -> int | None:  # pragma: no cover
        raise NotImplementedError

    def is_global(self, name: str) -> bool:  # pragma: no cover
        raise NotImplementedError

    def is_function(self, name: str) -> bool:  # pragma: no cover
        raise NotImplementedError


def address_names(pointer) -> frozenset:
    """The names an address reads besides the variable it points into (`&w[i].x`: `i`)."""
    node = pointer.children[1] if isinstance(pointer, Tree) and pointer.data == "unop" else pointer
    while isinstance(node, Tree) and node.data in ("index", "member"):
        node = node.children[0]
    root = frozenset({str(node.children[0])}) if isinstance(node, Tree) and node.data == "ident_expr" else frozenset()
    return names_in(pointer) - root if isinstance(pointer, Tree) else frozenset()


def names_in(node) -> frozenset:
    """Every identifier an expression or statement mentions."""
    return frozenset(str(n.children[0]) for n in node.iter_subtrees() if n.data == "ident_expr")


def _calls_functions(node, facts) -> bool:
    return any(n.data in ("call_expr", "call_stmt") and facts.is_function(str(n.children[0]))
               for n in node.iter_subtrees())


_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}


def evaluate(node, env, facts):
    """The value of an expression on a way around knowing `env` (an int or a bool), None
    when unknown."""
    known, outcomes = env
    if not isinstance(node, Tree):
        return None
    if node.data in ("binop", "unop"):
        outcome = outcomes.get(facts.text(node))
        if outcome is not None:
            return outcome[0]
    if node.data == "literal":
        tok = str(node.children[0])
        if tok in ("true", "false"):
            return tok == "true"
        return facts.const(node)
    if node.data == "ident_expr":
        name = str(node.children[0])
        if facts.is_global(name):
            # what the loop stored in a workgroup variable is known to everyone only through a
            # uniform load (a barrier), below; a plain read may still see the old value
            return facts.const(node)
        return known[name] if name in known else facts.const(node)
    if node.data == "unop":
        op, operand = node.children
        v = evaluate(operand, env, facts)
        if str(op) == "!" and isinstance(v, bool):
            return not v
        return facts.const(node)
    if node.data == "binop":
        a_node, op, b_node = node.children
        op = str(op)
        a = evaluate(a_node, env, facts)
        if op in ("&&", "||"):
            if a is (op == "||"):
                return a  # decided by the left side
            b = evaluate(b_node, env, facts)
            if isinstance(a, bool) and isinstance(b, bool):
                return b
            if b is (op == "||"):
                return b
            return None
        b = evaluate(b_node, env, facts)
        if a is None or b is None or isinstance(a, bool) != isinstance(b, bool):
            return None
        if op in _COMPARE:
            return _COMPARE[op](a, b)
        if op in _ARITH and not isinstance(a, bool):
            return _ARITH[op](a, b) & 0xFFFFFFFF
        return None
    if node.data == "call_expr" and str(node.children[0]) == "workgroupUniformLoad":
        args = node.children[2].children[0]
        if args is not None and len(args.children) == 1:
            arg = args.children[0]
            if isinstance(arg, Tree) and arg.data == "unop" and str(arg.children[0]) == "&":
                target = arg.children[1]
                if isinstance(target, Tree) and target.data == "ident_expr":
                    return known.get(str(target.children[0]))
        return None
    return facts.const(node)


def _kill(env, names):
    known, outcomes = env
    if not names:
        return env
    known = {k: v for k, v in known.items() if k not in names}
    outcomes = {t: v for t, v in outcomes.items() if not v[1] & names}
    return known, outcomes


def _learn(env, cond, outcome: bool, facts):
    """The way took the branch of `cond` that `outcome` says."""
    known, outcomes = env
    names = names_in(cond)
    if any(n.data == "call_expr" for n in cond.iter_subtrees()) or any(facts.is_global(n) for n in names):
        return env  # reads memory: the next test may come out otherwise
    outcomes = dict(outcomes)
    outcomes[facts.text(cond)] = (outcome, names)  # (with what it reads, to forget it when one changes)
    known = dict(known)
    if cond.data == "binop" and str(cond.children[1]) in ("==", "!=") and (str(cond.children[1]) == "==") == outcome:
        for side, other in ((cond.children[0], cond.children[2]), (cond.children[2], cond.children[0])):
            if isinstance(side, Tree) and side.data == "ident_expr":
                v = facts.const(other)
                if v is not None:
                    known[str(side.children[0])] = v
    return known, outcomes


def _freeze(env):
    known, outcomes = env
    return frozenset(known.items()), frozenset(outcomes.items())


def _thaw(frozen):
    return dict(frozen[0]), dict(frozen[1])


def _merge_collective(a, b, facts):
    """What the workgroup knows after a branch that picks invocations, each side taken by
    some of them: a workgroup variable stored on one side only holds what it stored (the
    other side left it), the rest only where both sides agree."""
    (ka, oa), (kb, ob) = a, b
    known = {}
    for name in set(ka) | set(kb):
        if name in ka and name in kb:
            if ka[name] == kb[name]:
                known[name] = ka[name]
        elif facts.is_global(name) and facts.settled(name) is not None:
            known[name] = ka.get(name, kb.get(name))
    outcomes = {t: v for t, v in oa.items() if ob.get(t) == v}
    return known, outcomes


def _declared(stmts) -> frozenset:
    out = set()
    for s in stmts:
        if s.data in ("var_decl", "let_decl", "const_decl"):
            typed = s.children[1] if s.data == "var_decl" else s.children[0]
            out.add(str(typed.children[0]))
    return frozenset(out)


def _forget_globals(env, facts):
    """After a call: a called function may store into any module-scope variable."""
    return _kill(env, frozenset(n for n in env[0] if facts.is_global(n)))


def _step(env, stmt, facts):
    """What a way knows after a plain statement (an assignment, a declaration, a call)."""
    killed = set(assigned_names(stmt))
    if _calls_functions(stmt, facts):
        env = _forget_globals(env, facts)
    target = value = None
    if stmt.data in ("var_decl", "let_decl", "const_decl"):
        typed = stmt.children[1] if stmt.data == "var_decl" else stmt.children[0]
        target, value = str(typed.children[0]), stmt.children[-1]
        killed.add(target)
    elif stmt.data == "assign" and isinstance(stmt.children[0], Tree) and stmt.children[0].data == "ident_expr":
        target, value = str(stmt.children[0].children[0]), stmt.children[1]
    v = evaluate(value, env, facts) if value is not None else None
    known, outcomes = _kill(env, frozenset(killed))
    if target is not None and v is not None:
        if not facts.is_global(target) or facts.settled(target) == v:
            known = dict(known)
            known[target] = v
    return known, outcomes


def _leading_exits(body) -> list:
    """The conditions of the `if (c) { ... break; }` that open the body: tested first each
    round, they end the loop when true."""
    out = []
    for s in body:
        if s.data == "if_stmt" and s.children[3] is None:
            then = trees_of(s.children[2].children[1:])
            if then and then[-1].data == "break_stmt":
                out.append(s.children[1])
                continue
        break
    return out


def _switch_picks(stmt, env, facts) -> set | None:
    """The clauses (by position in `branches`' lists) a switch can take on this way: the
    one its known selector matches, else None (any)."""
    v = evaluate(stmt.children[1], env, facts)
    if v is None or isinstance(v, bool):
        return None
    clauses = stmt.children[3:]
    default = len(clauses)  # `branches` adds an empty list when there is no default
    for i, clause in enumerate(clauses):
        if clause.data == "default_clause":
            default = i
            continue
        for sel in clause.children[0].children:
            if isinstance(sel, Tree) and sel.data == "default_selector":
                default = i
                continue
            value = facts.const(sel)
            if value is None:
                return None
            if value & 0xFFFFFFFF == v & 0xFFFFFFFF:
                return {i}
    return {default}


def _rounds(loop: Tree, progress: dict, facts: PathFacts, collective: frozenset, retries: dict,
            start_env) -> set | None:
    """The ways around from a round that starts knowing `start_env`, as (progress, what the
    way knows at the next test), those that end the loop there left out; None when there
    are too many ways to follow."""
    cond, body, cont, break_if, update = loop_parts(loop)
    too_many = []

    def nested_progress(node):
        out = frozenset()
        for sub in node.iter_subtrees():
            out |= progress.get(id(sub), frozenset())
        return out

    def run(stmts, paths, in_switch=False):
        back = set()
        for s in stmts:
            if not paths:
                break
            if len(paths) > _MAX_WAYS:
                too_many.append(True)
                return set(), set()
            if s.data == "break_stmt" and in_switch:
                return paths, back
            if s.data in ("break_stmt", "return_stmt", "discard_stmt"):
                return set(), back
            if s.data == "continue_stmt":
                return set(), back | paths
            if s.data in LOOP_KINDS:
                extra = nested_progress(s)
                # what a nested loop changes is not followed: it may run any number of rounds
                killed = assigned_names(s) | {n for n in names_in(s) if facts.is_global(n)}
                calls = _calls_functions(s, facts)
                new = set()
                for tokens, env in paths:
                    e = _kill(_thaw(env), killed)
                    new.add((tokens | extra, _freeze(_forget_globals(e, facts) if calls else e)))
                paths = new
            elif (br := branches(s)) is not None:
                extra = progress.get(id(s), frozenset())
                if extra:
                    paths = {(t | extra, e) for t, e in paths}
                if _calls_functions(br[0], facts):  # a call in the condition may change globals
                    paths = {(t, _freeze(_forget_globals(_thaw(e), facts))) for t, e in paths}
                new_paths, falls = set(), []
                retry = retries.get(id(s))
                is_if = s.data == "if_stmt"
                picks = {} if is_if else {env: _switch_picks(s, _thaw(env), facts) for _, env in paths}
                for i, lst in enumerate(br[1]):
                    start = set()
                    for tokens, env in paths:
                        e = _thaw(env)
                        if is_if:
                            v = evaluate(br[0], e, facts)
                            want = i == 0
                            if isinstance(v, bool) and v != want:
                                continue  # this way cannot take that branch
                            e = _learn(e, br[0], want, facts)
                        elif picks[env] is not None and i not in picks[env]:
                            continue
                        if retry and retry[0] == i:
                            tokens = tokens | retry[1]
                        start.add((tokens, _freeze(e)))
                    fall, cont_paths = run(lst, start, in_switch or s.data == "switch_stmt")
                    new_paths |= fall
                    falls.append(fall)
                    back |= cont_paths
                if id(s) in collective and len(falls) == 2 and all(falls):
                    new_paths = {(a[0] | b[0], _freeze(_merge_collective(_thaw(a[1]), _thaw(b[1]), facts)))
                                 for a in falls[0] for b in falls[1]}
                paths = new_paths
            elif (blk := block_of(s)) is not None:
                paths, cont_paths = run(blk, paths, in_switch)
                back |= cont_paths
                gone = _declared(blk)
                if gone:
                    paths = {(t, _freeze(_kill(_thaw(e), gone))) for t, e in paths}
                    back = {(t, _freeze(_kill(_thaw(e), gone))) for t, e in back}
            else:
                extra = progress.get(id(s), frozenset())
                paths = {(t | extra, _freeze(_step(_thaw(e), s, facts))) for t, e in paths}
        return paths, back

    if cond is not None:
        start_env = _learn(start_env, cond, True, facts)
    fall, back = run(body, {(progress.get(id(loop), frozenset()), _freeze(start_env))})
    around = fall | back
    around, _ = run(cont, around)
    if update is not None:
        extra = progress.get(id(update), frozenset())
        around = {(t | extra, _freeze(_step(_thaw(e), update, facts))) for t, e in around}
    if too_many:
        return None
    tests = ([(cond, False)] if cond is not None else []) + ([(break_if, True)] if break_if is not None else [])
    tests += [(c, True) for c in _leading_exits(body)]
    return {(tokens, env) for tokens, env in around
            if not any(evaluate(c, _thaw(env), facts) is ends for c, ends in tests)}


def ways_around(loop: Tree, progress: dict, facts: PathFacts, collective: frozenset = frozenset(),
                retries: dict | None = None) -> set[frozenset] | None:
    """`back_edge_paths`, with what each way knows along it (the branches it took, the
    constants it assigned, what a uniform load reads after the loop's own store of a
    settled workgroup variable): ways that cannot be taken, or that end the loop at its
    next test (its condition, a `break if`, an `if (c) { break; }` opening the body), are
    left out. None when there are too many ways to follow."""
    rounds = _rounds(loop, progress, facts, collective, retries or {}, ({}, {}))
    return None if rounds is None else {tokens for tokens, _ in rounds}


_MAX_STATES = 64


def rounds_end(loop: Tree, progress: dict, facts: PathFacts, entry, excused: frozenset,
               collective: frozenset = frozenset(), retries: dict | None = None) -> bool:
    """Whether the loop, entered knowing `entry`, cannot go around forever unless a way
    marked with one of the `excused` tokens is taken again and again (the states are what
    the ways know at each test: a state machine over constants, `pc = 1u`; a way through an
    exchange whose own store ends the loop next time can only repeat when another
    invocation stores in between). False when not shown, or when the states are too many."""
    retries = retries or {}
    start = _freeze(entry)
    edges, todo = {}, [start]
    while todo:
        state = todo.pop()
        if state in edges:
            continue
        if len(edges) >= _MAX_STATES:
            return False
        rounds = _rounds(loop, progress, facts, collective, retries, _thaw(state))
        if rounds is None:
            return False
        edges[state] = [env for tokens, env in rounds if not tokens & excused]
        todo.extend(env for _, env in rounds)
    # a cycle of ways none of them excused: the loop may go around forever by itself
    visiting, done = set(), set()

    def cyclic(state) -> bool:
        visiting.add(state)
        for nxt in edges.get(state, ()):
            if nxt in visiting or (nxt not in done and cyclic(nxt)):
                return True
        visiting.discard(state)
        done.add(state)
        return False

    return not cyclic(start)


_ZERO = {"u32": 0, "i32": 0, "bool": False}


def entry_knowledge(body_stmts: list, loop: Tree, facts: PathFacts):
    """What is known of the function's variables when `loop` starts (a function body's
    statements lead to it): constants assigned in straight-line code on the way, variables
    declared without a value (zero), the branches taken to reach it. Whatever a branch or
    a loop passed on the way assigns is unknown; so is what a loop around `loop` assigns.
    None when `loop` is not found."""

    def contains(node) -> bool:
        return any(n is loop for n in node.iter_subtrees())

    def walk(stmts, env):
        for s in stmts:
            if s is loop:
                return env
            if not isinstance(s, Tree):
                continue
            if contains(s):
                if s.data in LOOP_KINDS:
                    env = _kill(env, assigned_names(s) | _declared(trees_of(s.children)))
                    if s.data == "for_stmt" and s.children[1] is not None:
                        env = _kill(_step(env, s.children[1], facts), assigned_names(s))
                    _, body, cont, _, _ = loop_parts(s)
                    return walk(body + cont, env)
                if s.data == "if_stmt":
                    _, cond, then, other = s.children
                    if contains(then):
                        return walk(trees_of(then.children[1:]), _learn(env, cond, True, facts))
                    env = _learn(env, cond, False, facts)
                    return walk([other] if other.data == "if_stmt" else trees_of(other.children[1:]), env)
                if s.data == "switch_stmt":
                    for clause in s.children[3:]:
                        if contains(clause):
                            return walk(trees_of(clause.children[-1].children[1:]), env)
                if s.data == "compound":
                    return walk(trees_of(s.children[1:]), env)
                return None
            if s.data == "var_decl" and s.children[2] is None:
                typed = s.children[1]
                name = str(typed.children[0])
                env = _kill(env, frozenset({name}))
                zero = _ZERO.get(str(typed.children[1].children[0])) if typed.children[1] is not None else None
                if zero is not None:
                    known = dict(env[0])
                    known[name] = zero
                    env = (known, env[1])
            elif s.data in ("if_stmt", "switch_stmt", "compound") or s.data in LOOP_KINDS:
                env = _kill(env, assigned_names(s) | (_declared(trees_of(s.children[1:])) if s.data == "compound" else frozenset()))
                if _calls_functions(s, facts):
                    env = _forget_globals(env, facts)
            else:
                env = _step(env, s, facts)
        return None

    return walk(body_stmts, ({}, {}))
