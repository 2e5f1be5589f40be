"""A dataflow walk of each compute entry point, calls followed into their callees.

The walk tracks, for every value, the set of `Source`s it depends on (built-in inputs,
memory reads, loop counters), and records in program order the memory accesses, the
barriers and the loops. Variables and workgroup memory are flow-insensitive: each depends
on everything ever stored into it, including the conditions it was stored under (that is
how a wait travels through `var<workgroup>` and `workgroupUniformLoad`). The walk repeats
until those dependencies stop growing (loops feed values back); the events of the last
pass are what the rules read, and each loop is judged once, then (`_waited_storage`).

Speed, without changing what is recorded (tests/check/test_summaries.py compares with the
plain walk, event for event):
- Every read of what earlier passes stored (`var_deps`, `mem_deps`, `loop_divergence`,
  `loop_stores`) is noted; a pass whose reads all still hold at its end is the last one
  (another would read and do the same).
- A loop (inside no other) whose round changed what the round read is walked again at
  once, the records of the first round undone (`_mark`, `_rewind`): loop-carried values
  settle within a pass.
- Functions that only compute (`_is_pure`) are walked once per pass for each distinct set
  of argument dependencies. Every other call is kept as a trace: its first walk records
  what it does (accesses, barriers, loops, stores, reads, what it adds to the loops around
  the call) relative to its call site; a call with the same arguments and guards, at
  another site or in a later pass, replays the trace there when everything it read still
  holds (`_Trace`, `_replay`): the same events, with the call path, sequence numbers and
  enclosing loops of the new site.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from lark import Token, Tree

from . import indices, loops
from .model import (ATOMIC_RMW, BARRIERS, EMPTY, NONUNIFORM_BUILTINS, WORKGROUP_IDENTITY_BUILTINS,
                    Access, Barrier, EntryAnalysis, Frame, LoopReport, Ref, Site, Source, Val)
from .symbols import ModuleInfo, attributes, type_name

MAX_PASSES = 12
MAX_CALL_DEPTH = 24
LOOP_ROUNDS = 2  # walks of a loop within one pass, at most (more cost more than the passes they save)
ROUND_NESTING = 1  # only a loop inside no other (its callers' included) gets a second round
# replay traces of calls (see _Trace); off, every call is walked (what the tests compare with)
REPLAY = True


@dataclass(frozen=True)
class Ctx:
    control: frozenset = EMPTY  # what decides whether this code runs (this function only)
    guards: frozenset = EMPTY  # atomic reads among those, callers' included


@dataclass
class Flow:
    """How a statement can end: falls through, and/or leaves early (return, break, ...)."""

    falls: bool = True
    leaves: frozenset = frozenset()  # subset of {"return", "break", "continue"}
    divergence: frozenset = EMPTY  # what decides whether it leaves early
    waited: frozenset = EMPTY  # atomic reads a loop waited on: they guard what follows
    guards: frozenset = EMPTY  # guards in force where the block ends (for callers of a function)


@dataclass
class _LoopRecord:
    key: tuple
    node: Tree
    seq_start: int
    depth: int = 0  # how many calls deep the loop's own function is
    barrier: bool = False  # a workgroup barrier inside: its invocations go around together
    seq_end: int = 0
    created_loads: set = field(default_factory=set)
    # storage/workgroup writes in the loop: (stmt id, Ref written, atomic op or None)
    writes: list = field(default_factory=list)
    declared: set = field(default_factory=set)
    # (stmt id, var key, vars read directly, compound, loads the stored value is computed from)
    assignments: list = field(default_factory=list)
    pointer_calls: list = field(default_factory=list)  # (stmt id, var keys passed by pointer)


@dataclass
class _Trace:
    """What one walk of a called function did, to replay at another call site with the
    same inputs. Events are logged in order; each event that touches the loops around it
    carries, for the loops opened inside the call, the statement of their own function it
    ran in (the loops around the call take the call statement of the new site)."""

    name: str
    loop_depth: int  # loops open at the call: the rest are the callee's own
    stack_len: int  # functions on the call path at the call (barrier frames before the callee's)
    context_len: int  # call sites on the path at the call, before this one
    caller_depth: int  # len(caller_stmts) at the call
    events: list = field(default_factory=list)
    local_keys: set = field(default_factory=set)  # variables declared inside the call
    current: dict = field(default_factory=dict)  # outside variables it left strongly updated (None: dropped)
    result: object = None
    guards: frozenset = EMPTY  # what the call leaves in `call_guards`


@dataclass
class _Mark:
    """Where the walk's records stood, to undo a loop's round (`EntryWalker._rewind`)."""

    seq: int
    accesses: int
    barriers: int
    loops: int
    returns: int
    reads: int
    summaries: int
    call_guards: frozenset
    current: dict
    recs: list
    traces: list


_ATOMIC_READS: dict = {}


def _atomic_reads(deps: frozenset) -> frozenset:
    out = _ATOMIC_READS.get(deps)
    if out is None:
        if len(_ATOMIC_READS) > 50000:
            _ATOMIC_READS.clear()
        out = _ATOMIC_READS[deps] = frozenset(s.direct() for s in deps if s.kind == "load" and s.atomic)
    return out


_INDIRECT: dict = {}


def _indirect(control: frozenset) -> frozenset:
    """`control` as sources reached through a condition only (memoized: control sets repeat)."""
    out = _INDIRECT.get(control)
    if out is None:
        if len(_INDIRECT) > 50000:
            _INDIRECT.clear()
        out = _INDIRECT[control] = frozenset(s.through_control() for s in control)
    return out


_SUBTREES: dict = {}


def _subtrees(node: Tree) -> list:
    """Every tree node under `node`, itself included, in no particular order (memoized:
    each function's body is searched several times)."""
    hit = _SUBTREES.get(id(node))
    if hit is None or hit[0] is not node:
        if len(_SUBTREES) > 20000:
            _SUBTREES.clear()
        hit = _SUBTREES[id(node)] = (node, list(node.iter_subtrees_topdown()))
    return hit[1]


_ASSIGNED: dict = {}


def _assigned_names(node: Tree) -> frozenset:
    """Names assigned (or passed by pointer, `&x`) anywhere in `node` (memoized)."""
    names = _ASSIGNED.get(id(node))
    if names is None or names[0] is not node:
        found = set()
        for sub in _subtrees(node):
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


_PURE: dict = {}


def _is_pure(module: ModuleInfo, name: str) -> bool:
    """Whether a function only computes: no pointer parameters, no writes outside its own
    variables, no atomics, no barriers, no reads of read_write storage, and only calls to
    such functions. What it returns then depends on its arguments alone, and walking it
    again at another call site records nothing a rule reads."""
    key = (id(module), name)
    if key not in _PURE:
        _PURE[key] = False  # recursion is not pure
        _PURE[key] = _compute_pure(module, name)
        if len(_PURE) > 10000:
            _PURE.clear()
    return _PURE[key]


def _compute_pure(module: ModuleInfo, name: str) -> bool:
    fn = module.functions[name]
    if any(ptype is not None and "ptr" in str(ptype.children[0]) for _, ptype, _ in fn.params):
        return False
    local = {p for p, _, _ in fn.params}
    for node in _subtrees(fn.node):
        if node.data in ("var_decl", "let_decl", "const_decl"):
            typed = node.children[1] if node.data == "var_decl" else node.children[0]
            local.add(str(typed.children[0]))
    for node in _subtrees(fn.node):
        if node.data in ("assign", "compound_assign", "increment", "decrement"):
            target = node.children[0]
            while isinstance(target, Tree) and target.data in ("index", "member"):
                target = target.children[0]
            if not (isinstance(target, Tree) and target.data == "ident_expr"
                    and str(target.children[0]) in local):
                return False
        elif node.data in ("call_expr", "call_stmt"):
            callee = str(node.children[0])
            if callee.startswith("atomic") or callee in BARRIERS or callee == "workgroupUniformLoad":
                return False
            if callee in module.functions and not _is_pure(module, callee):
                return False
        elif node.data == "ident_expr":
            loc = module.globals.get(str(node.children[0]))
            if loc is not None and str(node.children[0]) not in local and (
                    loc.writable_storage or loc.space == "private"):
                return False
    return True


_SELF_WRITE = "<writes the awaited word>"
_SOURCES: dict = {}


def _interned(src: Source) -> Source:
    """One object per distinct source: sets of them then compare by identity."""
    if len(_SOURCES) > 100000:
        _SOURCES.clear()
    return _SOURCES.setdefault(src, src)


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
    return op in (None, "atomicStore", "atomicAdd", "atomicSub", _LOCK_FREE)


# a compare-exchange expecting exactly the value just read from its word: it fails only when
# another invocation changed the word in between (someone else progressed), so a way around
# a loop through it is a lock-free retry (a stack pop, a float add), not a wait
_LOCK_FREE = "lock-free compare-exchange"


def _plain_value(node) -> bool:
    """An expression that passes a value on unchanged: a name, a member (`r.old_value`) or
    a call (`atomicLoad(&x)`), not arithmetic on it."""
    while isinstance(node, Tree) and node.data == "paren":
        node = node.children[0]
    return isinstance(node, Tree) and node.data in ("ident_expr", "member", "call_expr")


def _same_word(ref: Ref, loc, other: Ref | None) -> bool:
    """Whether a write through `ref` may hit the word a read of `loc` through `other`
    reads: same variable and member path, and the same index expressions (a write to
    `flags[me]` does not change `flags[me - 1u]`)."""
    if not ref.loc.overlaps(loc):
        return False
    if other is None or not ref.index_texts or not other.index_texts:
        return True
    return ref.index_texts == other.index_texts


_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a // b if b else None, "%": lambda a, b: a % b if b else None,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None, ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}


def _const_value(node, walker) -> int | None:
    if isinstance(node, Token) or not isinstance(node, Tree):
        return None
    kind = node.data
    if kind == "literal":
        tok = str(node.children[0])
        if node.children[0].type != "INT":
            return None
        return int(tok.rstrip("iu"), 0) if tok.rstrip("iu") else 0
    if kind == "ident_expr":
        init = walker.module.const_values.get(str(node.children[0]))
        return walker._const(init) if init is not None else None
    if kind == "binop":
        a, op, b = node.children
        fn = _BINOPS.get(str(op))
        x, y = walker._const(a), walker._const(b)
        if fn is None or x is None or y is None:
            return None
        v = fn(x, y)
        return None if v is None else v & 0xFFFFFFFF
    if kind == "unop":
        op, operand = node.children
        x = walker._const(operand)
        if x is None:
            return None
        return {"-": -x & 0xFFFFFFFF, "~": ~x & 0xFFFFFFFF}.get(str(op))
    if kind == "call_expr" and str(node.children[0]) in ("u32", "i32"):
        args = node.children[2].children[0]
        if args is not None and len(args.children) == 1:
            return walker._const(args.children[0])
    return None


# read-modify-writes that leave the word as it is when their operand is this constant:
# `atomicAdd(&x, 0u)` is a read
_IDENTITY_OPERAND = {"atomicAdd": 0, "atomicSub": 0, "atomicOr": 0, "atomicXor": 0,
                     "atomicAnd": 0xFFFFFFFF}


def _union(vals) -> frozenset:
    out = EMPTY
    for v in vals:
        out |= v.deps
    return out


def _block_end(events: list, begin: int) -> int:
    """The index of the `pure_end` that closes the `pure_begin` at `begin`."""
    depth = 0
    for i in range(begin, len(events)):
        kind = events[i][0]
        if kind == "pure_begin":
            depth += 1
        elif kind == "pure_end":
            depth -= 1
            if depth == 0:
                return i
    raise AssertionError("a pure_begin without its pure_end")


def _moved(access: Access, seq: int, loops: tuple) -> Access:
    """`access` as it happens at another point of the walk."""
    return Access(access.kind, access.atomic, access.op, access.loc, access.ref, access.site, seq,
                  access.guards, loops, access.result_used, access.source, access.operand_deps,
                  access.operand_const, access.mask)


_NOTHING = Val()  # a value that depends on nothing (shared: Vals are never changed in place)
_CALL_GRAPHS: dict = {}


def _call_graph(module: ModuleInfo, name: str) -> tuple[frozenset, int | None]:
    """(the functions `name` calls, directly or not; the longest chain of calls from it,
    itself included), the length None when the chain comes back to a function on it."""
    graph = _CALL_GRAPHS.get(id(module))
    if graph is None or graph[0] is not module:
        if len(_CALL_GRAPHS) > 1000:
            _CALL_GRAPHS.clear()
        graph = _CALL_GRAPHS[id(module)] = (module, {})
    memo = graph[1]
    if name in memo:
        return memo[name]
    memo[name] = (frozenset(), None)  # on the way: a cycle when met again
    reach, height = set(), 1
    for node in _subtrees(module.functions[name].node):
        if node.data in ("call_expr", "call_stmt"):
            callee = str(node.children[0])
            if callee in module.functions:
                sub_reach, sub_height = _call_graph(module, callee)
                reach |= sub_reach | {callee}
                height = None if height is None or sub_height is None else max(height, sub_height + 1)
    memo[name] = (frozenset(reach), height)
    return memo[name]


class EntryWalker:
    def __init__(self, module: ModuleInfo, text: str, entry: str):
        self.module = module
        self.text = text
        self.entry = entry
        self.var_deps: dict[str, frozenset] = {}
        # workgroup memory, flow-insensitive like variables: root name -> what was stored
        self.mem_deps: dict[str, frozenset] = {}
        self.loop_divergence: dict[tuple, frozenset] = {}
        self.cond_deps: dict[int, frozenset] = {}
        self.load_refs: dict[Source, Ref] = {}  # where each read reads (its index)
        # compare-exchanges whose expected value is a read of the same word: lock-free
        # updates that fail only when someone else succeeded, not waits
        self.lock_free: set[Source] = set()
        # compare-exchanges with a constant expected value (`atomicCompareExchangeWeak(&slot[i], 0u, 1u)`)
        self.cas_expected: dict[Source, int] = {}
        self._consts: dict[int, int | None] = {}
        self._masks: dict[int, int] = {}  # atomicLoad call -> constant its value is ANDed with
        self.name_masks: dict[Source, int] = {}  # atomic read -> bits masked out of it later
        self._used: dict[str, set] = {}  # function -> identifiers its body mentions
        # (expression, call path) -> its index shape; shapes depend on the code and the
        # call path only, not on what variables hold, so they stay valid from pass to pass
        self._shapes: dict = {}
        # (loop, variable) -> what the loop stores into the variable (from earlier passes):
        # what a read in the loop may see besides the value the loop started with
        self.loop_stores: dict[tuple, frozenset] = {}
        # function -> parameters whose index shape its walk looks at (`buf[j]`, `let p = j * 4u`):
        # a call's trace is replayed only where those arguments have the same shape
        self._sensitive: dict[str, set] = {}
        self._texts: dict[int, str] = {}  # index expression -> its source text
        self._module_vals: dict[str, Val] = {}  # what a module-scope name evaluates to
        # (function, its inputs) -> _Trace; kept from pass to pass: a trace is replayed only
        # where what its walk read (variables, workgroup memory, loop state, summaries of
        # pure calls) still holds what it held
        self._trace_memo: dict = {}

    # ---- driver

    def run(self) -> EntryAnalysis:
        for _ in range(MAX_PASSES):
            lock_free = len(self.lock_free)
            self._pass()
            if len(self.lock_free) == lock_free and all(
                    table.get(key, EMPTY) == value for table, key, value in self._reads):
                # every value the pass read is what the tables hold now: another pass would
                # read and do exactly the same (the walk has converged)
                break
        for access in self.result.accesses:
            if access.mask is None and access.source in self.name_masks:
                access.mask = self.name_masks[access.source]
        for rec in self.loops_seen:
            waited = self._waited_storage(rec)
            if waited:
                self.result.spin_loops.append(LoopReport(rec.key, Site.of(rec.node), waited,
                                                         rec.seq_start, rec.seq_end))
        # (a loop waiting for memory presumes someone else: not written for one invocation)
        self.result.single_invocation = self._workgroup_size() == 1 and not self.result.spin_loops and not any(
            s.kind == "builtin" and s.name in WORKGROUP_IDENTITY_BUILTINS | NONUNIFORM_BUILTINS
            for a in self.result.accesses for s in a.ref.index_deps)
        return self.result

    def _workgroup_size(self) -> int | None:
        """Invocations per workgroup when @workgroup_size is made of constants."""
        attrs = attributes(self.module.functions[self.entry].node.children[0]).get("workgroup_size")
        if not attrs:
            return None
        total = 1
        for dim in attrs:
            v = self._const(dim)
            if v is None:
                return None
            total *= v
        return total

    def _pass(self):
        self._summaries = {}  # what variables hold may have grown since the last pass
        self._created_log = []
        self.result = EntryAnalysis(self.entry, self.module.functions[self.entry].stage,
                                    load_refs=self.load_refs)
        self.loops_seen: list[_LoopRecord] = []
        self.seq = 0
        self.context: tuple = ()
        self.call_stack: list[Frame] = []
        self.loop_stack: list[_LoopRecord] = []
        self.active: list[str] = []
        self.stmt_id = 0
        self.caller_stmts: list[int] = []  # the statement each active call is made from
        self.call_guards = EMPTY  # guards a called function leaves in force (a lock it took)
        self._summaries: dict = {}  # (pure function, argument deps) -> (result, reads it made)
        self._created_log: list[set] = []
        self._traces: list[_Trace] = []  # the calls being recorded, innermost last
        # (table, key, value) for every read of what earlier passes stored (var_deps,
        # mem_deps, loop_divergence, loop_stores): the pass's result depends on nothing else
        self._reads: list[tuple] = []
        self._consults: list[set] = []  # parameters looked at by the shapes being computed
        self.scopes: list[dict] = []
        # what each local variable holds here, for reads in straight-line code: an
        # assignment at the variable's own nesting level replaces it (a strong update);
        # inside a branch or a loop it only adds to it. Loops fall back to var_deps.
        self.current: dict[str, frozenset] = {}
        self.depth = 0  # branches and loops the walk is inside
        self.decl_depth: dict[str, int] = {}
        self.returns: list[Val] = []
        self.cond_deps = {}
        fn = self.module.functions[self.entry]
        args = [self._entry_param(name, ptype, builtin) for name, ptype, builtin in fn.params]
        self._call_function(self.entry, args, None, Ctx())

    def _entry_param(self, name, ptype, builtin) -> Val:
        if builtin:
            return Val(frozenset({_interned(Source("builtin", builtin))}))
        members = self.module.structs.get(type_name(ptype) or "")
        if members:
            fields = {m: Val(frozenset({Source("builtin", b)}) if b else EMPTY) for m, b in members.items()}
            return Val(_union(fields.values()), fields=fields)
        return Val()

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

    # ---- functions and scopes

    def _call_function(self, name: str, args: list[Val], call_site: Site | None, caller: Ctx) -> Val:
        fn = self.module.functions[name]
        if name in self.active or len(self.active) > MAX_CALL_DEPTH:
            return Val(_union(args))
        if call_site is None:
            return self._walk_function(name, fn, args, call_site, caller)
        if _is_pure(self.module, name) and all(a.ref is None and a.fields is None for a in args):
            # a function that only computes (see _is_pure): walked once per pass for each
            # distinct set of argument dependencies, then summarized
            memo_key = (name, tuple(a.deps for a in args))
            hit = self._summaries.get(memo_key)
            if hit is not None:
                if self._traces:
                    self._log("pure_hit", (memo_key, hit))
                result, created = hit
                for src in created:
                    self._created(src)
                return result
            # the first call in a pass: a trace around it records the walk as a block that
            # a replay either does (still the first call) or skips (then a hit)
            block = [memo_key, None]
            if self._traces:
                self._log("pure_begin", block)
            self._created_log.append(set())
            result = self._walk_function(name, fn, args, call_site, caller)
            created = self._created_log.pop()
            if self._created_log:
                self._created_log[-1] |= created
            block[1] = self._summaries[memo_key] = (result, frozenset(created))
            if self._traces:
                self._log("pure_end", block)
            return result
        if not self._replayable(name, args):
            return self._walk_function(name, fn, args, call_site, caller)
        trace = self._trace_memo.get(self._trace_key(name, args, caller))
        if trace is not None and self._replay(trace, call_site, caller):
            return trace.result
        trace = _Trace(name, len(self.loop_stack), len(self.call_stack), len(self.context),
                       len(self.caller_stmts))
        self._traces.append(trace)
        try:
            trace.result = self._walk_function(name, fn, args, call_site, caller)
        finally:
            self._traces.pop()
        trace.guards = self._last_guards
        # keyed after the walk: it has found which parameters' shapes matter
        self._trace_memo[self._trace_key(name, args, caller)] = trace
        return trace.result

    # ---- summaries of calls: record once, replay at each call site with the same inputs

    def _replayable(self, name: str, args: list[Val]) -> bool:
        """Whether what a walk of `name` does depends only on what `_trace_key` holds: no
        struct of built-ins passed, no recursion, no call chain cut by MAX_CALL_DEPTH."""
        if not REPLAY or any(a.fields is not None for a in args):
            return False
        reach, height = _call_graph(self.module, name)
        return (height is not None and len(self.active) + height <= MAX_CALL_DEPTH
                and not any(f in reach for f in self.active))

    def _trace_key(self, name: str, args: list[Val], caller: Ctx) -> tuple:
        sensitive = self._sensitive.get(name, ())
        params = self.module.functions[name].params
        parts = []
        for i, a in enumerate(args):
            pname = params[i][0] if i < len(params) else None
            level = None
            if a.ref is not None and a.ref.local_key is not None:
                # a store through the pointer replaces the caller's value only at the
                # variable's own nesting level
                d = self.decl_depth.get(a.ref.local_key)
                level = None if d is None else self.depth - d
            parts.append((a.deps, a.ref, a.is_pointer, a.shape if pname in sensitive else None, level))
        return name, tuple(parts), caller.guards

    def _log(self, kind: str, payload, stmts: tuple | None = None):
        """Record an event in the traces being recorded; `stmts` (one per open loop) are
        cut to the loops each trace's call opened itself."""
        if stmts is None:
            event = (kind, payload, None)
            for t in self._traces:
                t.events.append(event)
        else:
            for t in self._traces:
                t.events.append((kind, payload, stmts[t.loop_depth:]))

    def _loop_stmts(self) -> tuple:
        return tuple(self._stmt_in(rec) for rec in self.loop_stack)

    def _replay(self, trace: _Trace, call_site: Site, caller: Ctx) -> bool:
        """Do at this call site what the recorded walk did at its own. False (nothing
        done) when the walk read something that no longer holds what it held (a variable,
        workgroup memory, a loop's state at this call path, the summary of a pure call):
        then the call is walked."""
        prefix = self.context + ((call_site.line, call_site.column),)
        cut = trace.context_len + 1

        def here(key):
            return key[0], key[1], prefix + key[2][cut:]

        events = trace.events
        if not self._still_holds(events, here):
            return False
        self.call_stack.append(Frame(call_site, trace.name, caller.control))
        outer_frames = self._frames(call_site, caller)[:-1]
        self.call_stack.pop()
        at_call = self.caller_stmts + [self.stmt_id]
        outer = tuple(at_call[rec.depth] for rec in self.loop_stack)
        depth_shift = len(self.caller_stmts) - trace.caller_depth
        i, n = 0, len(events)
        while i < n:
            kind, payload, stmts = events[i]
            i += 1
            if stmts is not None:
                stmts = outer + stmts
            if kind == "access":
                self._emit_access(_moved(payload, self._next_seq(),
                                         tuple(rec.key for rec in self.loop_stack)), stmts)
            elif kind == "created":
                self._created(payload)
            elif kind == "load_ref":
                self._set_load_ref(*payload)
            elif kind == "store":
                key, deps = payload
                self.var_deps[key] = self.var_deps.get(key, EMPTY) | deps
                self._loop_store(key, deps)
            elif kind == "declare":
                self._declare(payload)
            elif kind == "assign":
                self._emit_assignment(payload, stmts)
            elif kind == "pointer_call":
                self._emit_pointer_call(payload, stmts)
            elif kind == "barrier":
                name, site, frames = payload
                self._emit_barrier(name, site, outer_frames + frames[trace.stack_len:])
            elif kind == "enter":
                node, key, depth, seen_divergence, seen_stores = payload
                self._enter_loop(_LoopRecord(here(key), node, self.seq + 1, depth=depth + depth_shift),
                                 seen_divergence, seen_stores)
            elif kind == "exit":
                self._exit_loop(payload)
            elif kind == "var_read" or kind == "mem_read":
                self._reads.append((self.var_deps if kind == "var_read" else self.mem_deps,) + payload)
                if self._traces:
                    self._log(kind, payload)  # what a trace around this call depends on
            elif kind == "pure_begin":
                summary = self._summaries.get(payload[0])
                if summary is not None:  # walked since: a hit now, as a call would be
                    if self._traces:
                        self._log("pure_hit", (payload[0], summary))
                    for src in summary[1]:
                        self._created(src)
                    i = _block_end(events, i - 1) + 1
                elif self._traces:
                    self._log(kind, payload)
            elif kind == "pure_end":
                self._summaries[payload[0]] = payload[1]
                if self._traces:
                    self._log(kind, payload)
            elif kind == "pure_hit":
                if self._traces:
                    self._log(kind, payload)
            elif kind == "cond":
                self._note_condition(*payload)
            elif kind == "mem_store":
                root, deps = payload
                self.mem_deps[root] = self.mem_deps.get(root, EMPTY) | deps
                if self._traces:
                    self._log(kind, payload)
            elif kind == "lower_bound":
                self._note_lower_bound(payload)
            elif kind == "mask":
                self._note_mask(*payload)
            elif kind == "lock_free":
                self._note_lock_free(payload)
            else:
                raise AssertionError(kind)
        for key, value in trace.current.items():
            if value is None:
                self._drop_current(key)
            else:
                self._set_current(key, value)
        self.call_guards |= trace.guards
        return True

    def _still_holds(self, events: list, here) -> bool:
        """Whether every read the events record would read the same now (pure calls:
        a hit with the same summary, or a first call whose walk's reads still hold)."""
        pending = {}  # summaries the replay itself will have stored by then
        i, n = 0, len(events)
        while i < n:
            kind, payload, _ = events[i]
            if kind == "var_read":
                if self.var_deps.get(payload[0], EMPTY) != payload[1]:
                    return False
            elif kind == "mem_read":
                if self.mem_deps.get(payload[0], EMPTY) != payload[1]:
                    return False
            elif kind == "enter":
                _node, key, _depth, seen_divergence, seen_stores = payload
                key = here(key)
                if self.loop_divergence.get(key, EMPTY) != seen_divergence or any(
                        self.loop_stores.get((key, var), EMPTY) != value for var, value in seen_stores):
                    return False
            elif kind == "pure_begin":
                known = self._summaries.get(payload[0]) or pending.get(payload[0])
                if known is not None:
                    if known != payload[1]:
                        return False
                    i = _block_end(events, i)
            elif kind == "pure_end":
                pending[payload[0]] = payload[1]
            elif kind == "pure_hit":
                known = self._summaries.get(payload[0]) or pending.get(payload[0])
                if known != payload[1]:
                    return False
            i += 1
        return True

    def _emit_access(self, access: Access, stmts: tuple | None):
        if stmts is not None:  # a write: the loops around it write there
            op = _LOCK_FREE if access.source is not None and access.source in self.lock_free else access.op
            for rec, stmt in zip(self.loop_stack, stmts):
                rec.writes.append((stmt, access.ref, op))
        self.result.accesses.append(access)
        if self._traces:
            self._log("access", access, stmts)

    def _emit_barrier(self, name: str, site: Site, frames: list):
        for rec in self.loop_stack:
            rec.barrier = True
        self.result.barriers.append(Barrier(name, site, self._next_seq(), frames))
        if self._traces:
            self._log("barrier", (name, site, frames))

    def _emit_assignment(self, assignment: tuple, stmts: tuple):
        for rec, stmt in zip(self.loop_stack, stmts):
            rec.assignments.append((stmt,) + assignment)
        if self._traces:
            self._log("assign", assignment, stmts)

    def _emit_pointer_call(self, keys: frozenset, stmts: tuple):
        for rec, stmt in zip(self.loop_stack, stmts):
            rec.pointer_calls.append((stmt, keys))
        if self._traces:
            self._log("pointer_call", keys, stmts)

    def _declare(self, key: str):
        for t in self._traces:
            t.local_keys.add(key)
        for rec in self.loop_stack:
            rec.declared.add(key)
        if self._traces:
            self._log("declare", key)

    def _set_load_ref(self, src: Source, ref: Ref):
        self.load_refs[src] = ref
        if self._traces:
            self._log("load_ref", (src, ref))

    def _loop_store(self, key: str, deps: frozenset):
        for rec in self.loop_stack:
            self.loop_stores[(rec.key, key)] = self.loop_stores.get((rec.key, key), EMPTY) | deps
        if self._traces:
            self._log("store", (key, deps))

    def _set_current(self, key: str, deps: frozenset):
        self.current[key] = deps
        for t in self._traces:
            if key not in t.local_keys:
                t.current[key] = deps

    def _drop_current(self, key: str):
        self.current.pop(key, None)
        for t in self._traces:
            if key not in t.local_keys:
                t.current[key] = None

    def _enter_loop(self, rec: _LoopRecord, seen_divergence: frozenset, seen_stores: tuple):
        self._reads.append((self.loop_divergence, rec.key, seen_divergence))
        for var, value in seen_stores:
            self._reads.append((self.loop_stores, (rec.key, var), value))
        self.loop_stack.append(rec)
        if self._traces:
            self._log("enter", (rec.node, rec.key, rec.depth, seen_divergence, seen_stores))

    def _exit_loop(self, divergence: frozenset):
        rec = self.loop_stack.pop()
        self.loop_divergence[rec.key] = self.loop_divergence.get(rec.key, EMPTY) | divergence
        rec.seq_end = self.seq
        self.loops_seen.append(rec)  # judged once the walk has converged (see run)
        if self._traces:
            self._log("exit", divergence)

    def _note_lower_bound(self, position: tuple):
        self.result.lower_bound_tests.add(position)
        if self._traces:
            self._log("lower_bound", position)

    def _note_mask(self, src: Source, mask: int):
        self.name_masks[src] = self.name_masks.get(src, 0) | mask
        if self._traces:
            self._log("mask", (src, mask))

    def _note_lock_free(self, src: Source):
        self.lock_free.add(src)
        if self._traces:
            self._log("lock_free", src)

    def _walk_function(self, name, fn, args, call_site, caller) -> Val:
        self.call_stack.append(Frame(call_site, name, caller.control))
        saved_context, saved_stmt = self.context, self.stmt_id
        if call_site is not None:
            self.context = self.context + ((call_site.line, call_site.column),)
        self.active.append(name)
        self.caller_stmts.append(saved_stmt)
        scope = {pname: arg for (pname, _, _), arg in zip(fn.params, args)}
        saved_scopes = self.scopes
        self.scopes = [scope]
        saved_returns = self.returns
        self.returns = []
        body = fn.node.children[-1]
        self._consults.append(set())
        flow = self._block(body.children[1:], Ctx(guards=caller.guards))
        consulted = self._consults.pop()
        if consulted:
            self._sensitive.setdefault(name, set()).update(consulted)
        result = Val(_union(self.returns))
        self.returns = saved_returns
        self.scopes = saved_scopes
        self.caller_stmts.pop()
        self.active.pop()
        # a wait inside the callee (taking a lock) guards what the caller does next
        self._last_guards = flow.guards - caller.guards
        self.call_guards |= self._last_guards
        self.context, self.stmt_id = saved_context, saved_stmt
        self.call_stack.pop()
        return result

    def _lookup(self, name: str) -> Val:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        val = self._module_vals.get(name)
        if val is None:
            loc = self.module.globals.get(name)
            if loc is None:
                val = Val()  # constants, overrides, type names, enumerants: uniform
            elif loc.space == "private":
                val = Val(ref=Ref(local_key=f"private:{name}"))
            else:
                val = Val(ref=Ref(loc=loc))
            self._module_vals[name] = val  # (never changed in place: shared)
        return val

    def _var_key(self, name: str, node) -> str:
        site = Site.of(node)
        return f"{self.call_stack[-1].function}:{name}@{site.line}:{site.column}"

    def _store_var(self, key: str, data: frozenset, control: frozenset, declare: bool = False):
        deps = data | _indirect(control)
        self.var_deps[key] = self.var_deps.get(key, EMPTY) | deps
        self._loop_store(key, deps)
        if declare:
            self.decl_depth[key] = self.depth
        if key.startswith("private:"):
            return  # module-scope: any callee may change it
        if self.decl_depth.get(key) == self.depth:
            self._set_current(key, deps)  # every path to here runs this assignment last
        elif key in self.current:
            self._set_current(key, self.current[key] | deps)

    def _var_value(self, key: str) -> frozenset:
        current = self.current.get(key)
        if current is not None:
            return current
        value = self.var_deps.get(key, EMPTY)
        self._reads.append((self.var_deps, key, value))
        if self._traces:
            self._log("var_read", (key, value))
        return value

    def _join_loop_stores(self, node, loop_key) -> tuple:
        """Variables assigned in `node` (a loop) may hold, in and after it, what any round
        stored as well as what they held before it. Returns what it read: ((var, stores), ...)."""
        seen = []
        for name in _assigned_names(node):
            ref = self._lookup(name).ref
            if ref is not None and ref.local_key is not None and ref.local_key in self.current:
                key = ref.local_key
                stored = self.loop_stores.get((loop_key, key), EMPTY)
                seen.append((key, stored))
                self._set_current(key, self.current[key] | stored)
        return tuple(seen)

    # ---- statements

    def _block(self, stmts, ctx: Ctx) -> Flow:
        self.scopes.append({})
        flow = Flow()
        for stmt in stmts:
            if not isinstance(stmt, Tree):
                continue
            saved_call_guards, self.call_guards = self.call_guards, EMPTY
            f = self._stmt(stmt, ctx)
            if self.call_guards:
                ctx = Ctx(ctx.control, ctx.guards | self.call_guards)
            self.call_guards = saved_call_guards
            flow.leaves |= f.leaves
            if f.leaves and f.divergence:
                flow.divergence |= f.divergence
                ctx = Ctx(ctx.control | f.divergence, ctx.guards | _atomic_reads(f.divergence))
            if f.waited:
                ctx = Ctx(ctx.control, ctx.guards | f.waited)
            if not f.falls:
                flow.falls = False
                break
        self.scopes.pop()
        flow.guards = ctx.guards
        return flow

    def _stmt(self, stmt: Tree, ctx: Ctx) -> Flow:
        self.stmt_id = id(stmt)
        kind = stmt.data
        handler = getattr(self, "_stmt_" + kind, None)
        if handler is not None:
            return handler(stmt, ctx)
        if kind in ("break_stmt", "continue_stmt"):
            return Flow(falls=False, leaves=frozenset({kind[:-5]}))
        if kind == "discard_stmt":
            return Flow(falls=False, leaves=frozenset({"return"}))
        return Flow()  # empty statements, const_assert

    def _stmt_compound(self, stmt, ctx):
        return self._block(stmt.children[1:], ctx)

    def _stmt_return_stmt(self, stmt, ctx):
        expr = stmt.children[0]
        val = self._value(expr, ctx) if expr is not None else Val()
        self.returns.append(Val(val.deps | ctx.control, val.ref, val.is_pointer))
        return Flow(falls=False, leaves=frozenset({"return"}))

    def _stmt_call_stmt(self, stmt, ctx):
        self._call(stmt, ctx, result_used=False)
        return Flow()

    def _stmt_var_decl(self, stmt, ctx):
        _template, typed, init = stmt.children
        name = str(typed.children[0])
        key = self._var_key(name, typed)
        data = self._value(init, ctx).deps if init is not None else EMPTY
        self._declare(key)
        self._store_var(key, data, ctx.control, declare=True)
        self.scopes[-1][name] = Val(ref=Ref(local_key=key))
        return Flow()

    def _stmt_let_decl(self, stmt, ctx):
        typed, init = stmt.children
        name = str(typed.children[0])
        if (isinstance(init, Tree) and init.data == "call_expr"
                and name not in self._used_names(self.call_stack[-1].function)):
            self._call(init, ctx, result_used=False)  # `let unused = atomicLoad(...)`
            self.scopes[-1][name] = Val()
            return Flow()
        val = self._value(init, ctx)
        if val.ref is None:
            shape = self._shape(init)
            if not shape.known and type_name(typed.children[1]) == "u32":
                shape = indices.unknown(True)
            val = Val(val.deps, None, val.is_pointer, val.fields, shape)
        self.scopes[-1][name] = val
        return Flow()

    def _used_names(self, function: str) -> set:
        used = self._used.get(function)
        if used is None:
            node = self.module.functions[function].node
            used = self._used[function] = {str(n.children[0]) for n in _subtrees(node)
                                           if n.data in ("ident_expr", "lhs_ident")}
        return used

    _stmt_const_decl = _stmt_let_decl

    def _stmt_assign(self, stmt, ctx):
        self._assign(stmt.children[0], self._value(stmt.children[1], ctx), ctx, compound=False)
        return Flow()

    def _stmt_compound_assign(self, stmt, ctx):
        self._assign(stmt.children[0], self._value(stmt.children[2], ctx), ctx, compound=True)
        return Flow()

    def _stmt_increment(self, stmt, ctx):
        self._assign(stmt.children[0], Val(), ctx, compound=True)
        return Flow()

    _stmt_decrement = _stmt_increment

    def _stmt_phony_assign(self, stmt, ctx):
        expr = stmt.children[1]
        if isinstance(expr, Tree) and expr.data == "call_expr":
            self._call(expr, ctx, result_used=False)
        else:
            self._value(expr, ctx)
        return Flow()

    def _assign(self, lhs, val: Val, ctx: Ctx, compound: bool):
        target = self._eval(lhs, ctx)
        ref = target.ref
        if ref is None:
            return
        if ref.local_key is not None:
            self._store_var(ref.local_key, val.deps | ref.index_deps, ctx.control)
            reads = frozenset(s.name for s in val.deps if s.kind == "var" and not s.indirect)
            loads = frozenset(s for s in val.deps if s.kind == "load" and not s.indirect)
            if self.loop_stack or self._traces:
                self._emit_assignment((ref.local_key, reads, compound, loads), self._loop_stmts())
        elif ref.loc is not None:
            if compound:
                self._load(target, lhs, ctx)
            if ref.loc.space == "workgroup":
                self._store_mem(ref.loc, val.deps, ctx.control)
            self._access("write", False, None, ref, Site.of(lhs), ctx)

    def _store_mem(self, loc, data: frozenset, control: frozenset):
        deps = data | _indirect(control)
        if self._traces:
            self._log("mem_store", (loc.root, deps))
        self.mem_deps[loc.root] = self.mem_deps.get(loc.root, EMPTY) | deps

    def _condition(self, node, ctx: Ctx) -> frozenset:
        deps = self._value(node, ctx).deps
        self._note_condition(id(node), deps)
        return deps

    def _note_condition(self, node_id: int, deps: frozenset):
        self.cond_deps[node_id] = self.cond_deps.get(node_id, EMPTY) | deps
        if self._traces:
            self._log("cond", (node_id, deps))

    def _stmt_if_stmt(self, stmt, ctx):
        _attrs, cond, then, other = stmt.children
        deps = self._condition(cond, ctx)
        inner = Ctx(ctx.control | deps, ctx.guards | _atomic_reads(deps))
        self.depth += 1
        flows = [self._stmt(then, inner)]
        flows.append(self._stmt(other, inner) if other is not None else Flow())
        self.depth -= 1
        return self._merge(flows, deps)

    def _stmt_switch_stmt(self, stmt, ctx):
        deps = self._condition(stmt.children[1], ctx)
        inner = Ctx(ctx.control | deps, ctx.guards | _atomic_reads(deps))
        flows = []
        self.depth += 1
        for clause in stmt.children[3:]:
            if clause.data == "case_clause":
                for sel in clause.children[0].children:
                    if isinstance(sel, Tree) and sel.data != "default_selector":
                        self._value(sel, ctx)
            flow = self._stmt(clause.children[-1], inner)
            if "break" in flow.leaves:  # a break leaves the switch only
                flow = replace(flow, falls=True, leaves=flow.leaves - {"break"})
            flows.append(flow)
        self.depth -= 1
        flows.append(Flow())
        return self._merge(flows, deps)

    @staticmethod
    def _merge(flows: list[Flow], deps: frozenset) -> Flow:
        leaves = frozenset().union(*(f.leaves for f in flows))
        divergence = EMPTY
        if leaves:
            divergence = deps.union(*(f.divergence for f in flows))
        return Flow(falls=any(f.falls for f in flows), leaves=leaves, divergence=divergence,
                    waited=frozenset().union(*(f.waited for f in flows)))

    # ---- loops

    def _stmt_loop_stmt(self, stmt, ctx):
        return self._loop(stmt, ctx)

    def _stmt_while_stmt(self, stmt, ctx):
        return self._loop(stmt, ctx)

    def _stmt_for_stmt(self, stmt, ctx):
        self.scopes.append({})
        init = stmt.children[1]
        if init is not None:
            self._stmt(init, ctx)
        flow = self._loop(stmt, ctx)
        self.scopes.pop()
        return flow

    def _loop(self, stmt: Tree, ctx: Ctx) -> Flow:
        """Walks the loop; once more (the first round undone) when what the round read
        from the tables was changed by the round itself (a counter's stores reach its
        test, which decides the body's control): the whole walk then needs fewer passes."""
        site = Site.of(stmt)
        key = (site.line, site.column, self.context)
        # (a round walks the loops inside it again: rounds of rounds would multiply)
        rounds = LOOP_ROUNDS if len(self.loop_stack) < ROUND_NESTING else 1
        for _ in range(rounds - 1):
            mark = self._mark()
            flow = self._loop_round(stmt, ctx, key)
            if all(table.get(k, EMPTY) == value for table, k, value in self._reads[mark.reads:]):
                return flow
            self._rewind(mark)
        return self._loop_round(stmt, ctx, key)

    def _mark(self) -> "_Mark":
        return _Mark(self.seq, len(self.result.accesses), len(self.result.barriers), len(self.loops_seen),
                     len(self.returns), len(self._reads), len(self._summaries), self.call_guards,
                     dict(self.current),
                     [(rec, len(rec.writes), len(rec.assignments), len(rec.pointer_calls))
                      for rec in self.loop_stack],
                     [(t, len(t.events), dict(t.current)) for t in self._traces])

    def _rewind(self, mark: "_Mark"):
        """Undo what the walk recorded since `mark` (the tables keep what it stored: they
        only grow)."""
        self.seq = mark.seq
        del self.result.accesses[mark.accesses:], self.result.barriers[mark.barriers:]
        del self.loops_seen[mark.loops:], self.returns[mark.returns:], self._reads[mark.reads:]
        for k in list(self._summaries)[mark.summaries:]:
            del self._summaries[k]  # a pure call first walked there is first walked again
        self.call_guards = mark.call_guards
        self.current = mark.current
        for rec, writes, assignments, pointer_calls in mark.recs:
            del rec.writes[writes:], rec.assignments[assignments:], rec.pointer_calls[pointer_calls:]
        for t, events, current in mark.traces:
            del t.events[events:]
            t.current = current

    def _loop_round(self, stmt: Tree, ctx: Ctx, key: tuple) -> Flow:
        rec = _LoopRecord(key, stmt, self.seq + 1, depth=len(self.caller_stmts))
        seen_stores = self._join_loop_stores(stmt, key)
        seen_divergence = self.loop_divergence.get(key, EMPTY)
        self._enter_loop(rec, seen_divergence, seen_stores)
        self.depth += 1
        body_ctx = Ctx(ctx.control | seen_divergence, ctx.guards)
        cond, body, cont, break_if, update = loops.loop_parts(stmt)
        divergence = EMPTY
        self.stmt_id = id(stmt)  # what the condition does belongs to the loop itself
        if cond is not None:
            divergence |= self._condition(cond, body_ctx)
        self.scopes.append({})
        flow = self._block(body, body_ctx)
        if flow.leaves:
            divergence |= flow.divergence
        if cont or break_if is not None:
            cont_ctx = Ctx(body_ctx.control | flow.divergence, body_ctx.guards)
            self._block(cont, cont_ctx)
            if break_if is not None:
                self.stmt_id = id(stmt)
                self.scopes.append({})
                divergence |= self._condition(break_if, cont_ctx)
                self.scopes.pop()
        self.scopes.pop()
        if update is not None:
            self._stmt(update, body_ctx)
        self.depth -= 1
        self._exit_loop(divergence)
        leaves_fn = frozenset({"return"}) & flow.leaves
        return Flow(falls=True, leaves=leaves_fn, divergence=flow.divergence if leaves_fn else EMPTY,
                    waited=_atomic_reads(self.loop_divergence[key]))

    def _stmt_in(self, rec: _LoopRecord) -> int:
        """The statement of the loop's own function that is running now (a call, when the
        walk is inside a callee)."""
        return self.stmt_id if len(self.caller_stmts) == rec.depth else self.caller_stmts[rec.depth]

    def _waited_storage(self, rec: _LoopRecord) -> list[Source]:
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
            for src in self.cond_deps.get(id(cond), EMPTY):
                if src.kind == "var":
                    cond_vars.add(src.name)
                    continue
                src = src.direct()
                if src.awaitable and src in rec.created_loads and src not in self.lock_free:
                    if rec.barrier and src.loc.space == "workgroup":
                        continue  # the invocations it waits for meet it at the barrier
                    exit_reads.add(src)
        if not exit_reads:
            return []
        # variables the awaited reads' addresses come from: a loop that moves them walks
        # through memory (a list, a search) rather than waiting on one word
        address_vars = set()
        for src in exit_reads:
            ref = self.load_refs.get(src)
            if ref is not None:
                address_vars |= {s.name for s in ref.index_deps if s.kind == "var"}
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
        for stmt_id, ref, op in rec.writes:
            if not _moves(op):
                continue
            if any(_same_word(ref, src.loc, self.load_refs.get(src)) for src in exit_reads):
                advance(stmt_id, _SELF_WRITE)
        goals = cond_vars | {_SELF_WRITE}
        collective = frozenset()
        exit_deps = EMPTY.union(*(self.cond_deps.get(id(cond), EMPTY) for cond in exit_conds))
        if not any(s.nonuniform for s in exit_deps) or (
                rec.barrier and self._same_for_the_workgroup(exit_conds, exit_deps)):
            collective = frozenset(
                id(node) for node in rec.node.iter_subtrees() if node.data == "if_stmt"
                and _picks_invocations(self.cond_deps.get(id(node.children[1]), EMPTY)))
        retries = self._spurious_failure_branches(rec, exit_reads)
        if all(path & goals for path in loops.back_edge_paths(rec.node, progress, collective, retries)):
            return []
        return sorted(exit_reads, key=lambda s: (s.site.line, s.site.column))

    def _spurious_failure_branches(self, rec: _LoopRecord, exit_reads) -> dict:
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
                value = self._const(other)
                cas = {s.direct() for s in self.cond_deps.get(id(cond), EMPTY)} & exit_reads
                if value is not None and any(self.cas_expected.get(c) == value for c in cas):
                    out[id(node)] = (1 if str(cond.children[1]) == "!=" else 0, frozenset({_SELF_WRITE}))
        return out

    def _same_for_the_workgroup(self, conds, deps: frozenset) -> bool:
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
            ref = self.load_refs.get(src)
            if ref is None or any(d.nonuniform for d in ref.index_deps):
                return False  # each invocation reads its own word
            roots.append(src.loc.root)
        seen = set()
        while roots:  # what was stored there, and what was stored where that was read
            root = roots.pop()
            if root in seen:
                continue
            seen.add(root)
            for d in self.mem_deps.get(root, EMPTY):
                d = d.direct()
                through_memory.add(d)
                if d.kind == "load" and d.loc is not None and d.loc.space == "workgroup":
                    roots.append(d.loc.root)
        return all(not s.nonuniform or s.direct() in direct or s.direct() in through_memory
                   for s in deps)

    # ---- expressions

    def _value(self, node, ctx: Ctx) -> Val:
        val = self._eval(node, ctx)
        if val.ref is not None and not val.is_pointer:
            return self._load(val, node, ctx)
        return val

    def _load(self, val: Val, node, ctx: Ctx) -> Val:
        ref = val.ref
        if ref.local_key is not None:
            deps = (val.deps | ref.index_deps | {_interned(Source("var", ref.local_key))}
                    | self._var_value(ref.local_key))
            return Val(deps)
        site = Site.of(node)
        src = _interned(Source("load", str(ref.loc), ref.loc, site=site))
        self._created(src)
        self._set_load_ref(src, ref)
        self._access("read", False, None, ref, site, ctx, source=src)
        return Val(val.deps | ref.index_deps | {src} | self._mem(ref.loc))

    def _mem(self, loc) -> frozenset:
        """What was stored into workgroup memory at `loc` (nothing for other spaces)."""
        if loc.space != "workgroup":
            return EMPTY
        value = self.mem_deps.get(loc.root, EMPTY)
        self._reads.append((self.mem_deps, loc.root, value))
        if self._traces:
            self._log("mem_read", (loc.root, value))
        return value

    def _created(self, src: Source):
        for rec in self.loop_stack:
            rec.created_loads.add(src)
        if self._created_log:
            self._created_log[-1].add(src)
        if self._traces:
            self._log("created", src)

    def _eval(self, node, ctx: Ctx) -> Val:
        if isinstance(node, Token):
            return _NOTHING
        kind = node.data
        if kind == "ident_expr":
            return self._lookup(str(node.children[0]))
        if kind == "literal":
            return _NOTHING
        if kind == "binop":
            op = str(node.children[1])
            if op in (">=", ">", "<=", "<"):  # `atomicLoad(&count) >= CAP`: a lower bound
                call = node.children[0] if op in (">=", ">") else node.children[2]
                if (isinstance(call, Tree) and call.data == "call_expr"
                        and str(call.children[0]) == "atomicLoad" and not call.meta.empty):
                    self._note_lower_bound((call.meta.line, call.meta.column))
            if op == "&":  # `atomicLoad(&f) & MASK`: only MASK's bits are read
                for call, other in ((node.children[0], node.children[2]), (node.children[2], node.children[0])):
                    if (isinstance(call, Tree) and call.data == "call_expr"
                            and str(call.children[0]) == "atomicLoad"):
                        m = self._const(other)
                        if m is not None:
                            self._masks[id(call)] = m
                    elif isinstance(call, Tree) and call.data == "ident_expr":
                        # `let f = atomicLoad(&w); if (f & MASK) != 0u`: a word of bit flags
                        m = self._const(other)
                        if m is not None:
                            for src in self._lookup(str(call.children[0])).deps:
                                if src.kind == "load" and src.atomic and not src.indirect:
                                    self._note_mask(src, m)
            return Val(self._value(node.children[0], ctx).deps | self._value(node.children[2], ctx).deps)
        if kind == "unop":
            op, operand = node.children
            if op == "&":
                inner = self._eval(operand, ctx)
                return Val(inner.deps, inner.ref, is_pointer=inner.ref is not None)
            if op == "*":
                inner = self._eval(operand, ctx)
                return Val(inner.deps, inner.ref, is_pointer=False)
            return Val(self._value(operand, ctx).deps)
        if kind == "index":
            base = self._eval(node.children[0], ctx)
            index = self._value(node.children[1], ctx)
            if base.ref is not None:
                b = base.ref
                ref = Ref(b.loc, b.local_key, b.index_deps | index.deps,
                          b.index_texts + (self._index_text(node.children[1]),),
                          b.const_index + (self._const(node.children[1]),),
                          b.index_dep_list + (index.deps,),
                          # (a function's own array: its index shape is never compared)
                          b.index_shapes + (self._shape(node.children[1]) if b.loc is not None
                                            else indices.UNKNOWN,))
                return Val(base.deps, ref)
            return Val(base.deps | index.deps)
        if kind == "member":
            base = self._eval(node.children[0], ctx)
            name = str(node.children[1])
            if base.fields is not None and name in base.fields:
                return base.fields[name]
            if base.ref is not None:
                if base.ref.loc is not None:
                    b = base.ref
                    return Val(base.deps, Ref(b.loc.member(name), b.local_key, b.index_deps, b.index_texts,
                                              b.const_index, b.index_dep_list, b.index_shapes))
                return Val(base.deps, base.ref)
            return Val(base.deps)
        if kind == "call_expr":
            return self._call(node, ctx, result_used=True)
        if kind == "template_list":
            return Val()
        # parenthesized expressions are inlined by the grammar; anything else: union
        return Val(frozenset().union(*(self._value(c, ctx).deps for c in node.children
                                       if isinstance(c, Tree))))

    def _const(self, node) -> int | None:
        """The value of an integer constant expression (literals, module `const`s,
        arithmetic and bit operators, u32()/i32()), else None."""
        key = id(node)
        if key not in self._consts:
            self._consts[key] = None  # also stops a `const` defined by itself
            self._consts[key] = _const_value(node, self)
        return self._consts[key]

    # ---- index arithmetic (see indices.py)

    def _workgroup_dims(self) -> dict:
        """Invocations along x, y, z of a workgroup (None where not a constant)."""
        dims = self.__dict__.get("_dims")
        if dims is None:
            attrs = attributes(self.module.functions[self.entry].node.children[0]).get("workgroup_size") or []
            values = [self._const(a) for a in attrs] + [1] * (3 - len(attrs))
            dims = self._dims = dict(zip("xyz", values))
        return dims

    def _builtin_shape(self, builtin: str, component: str | None) -> indices.Shape:
        dims = self._workgroup_dims()
        if component is None:
            if builtin == "local_invocation_index":
                total = self._workgroup_size()
                return indices.span(0, total - 1, True) if total else indices.unknown(True)
            return indices.unknown(True)
        if component not in dims:
            return indices.unknown(True)
        size = dims[component]
        if builtin == "workgroup_id":
            return indices.symbol((indices.WORKGROUP, component), True)
        if builtin == "num_workgroups":
            return indices.symbol(("num_workgroups", component), True)
        if builtin == "local_invocation_id" and size:
            return indices.span(0, size - 1, True)
        if builtin == "global_invocation_id" and size:  # wid * size + lid
            wid = indices.scale(indices.symbol((indices.WORKGROUP, component), True), size, True)
            return indices.add(wid, indices.span(0, size - 1, True))
        return indices.unknown(True)

    def _unsigned_literal(self, node) -> bool:
        if isinstance(node, Tree) and node.data == "literal":
            return str(node.children[0]).endswith("u")
        if isinstance(node, Tree) and node.data == "call_expr":
            return str(node.children[0]) == "u32"
        return False

    def _shape(self, node) -> indices.Shape:
        """An index expression as symbols plus bounds; side-effect free."""
        key = (id(node), self.context)
        hit = self._shapes.get(key)
        if hit is None:
            self._consults.append(set())
            shape = self._shape_of(node)
            hit = self._shapes[key] = (shape, frozenset(self._consults.pop()))
        if hit[1] and self._consults:
            self._consults[-1] |= hit[1]
        return hit[0]

    def _shape_of(self, node) -> indices.Shape:
        const = self._const(node)
        if const is not None:
            return indices.point(const, self._unsigned_literal(node))
        if not isinstance(node, Tree):
            return indices.UNKNOWN
        kind = node.data
        if kind == "ident_expr":
            name = str(node.children[0])
            for scope in reversed(self.scopes):
                if name in scope:
                    val = scope[name]
                    if val.shape is not None:
                        if scope is self.scopes[0]:  # a parameter: its shape is the caller's
                            self._consults[-1].add(name)
                        return val.shape
                    return self._opaque_shape(val)
            if name in self.module.constants:  # an override: fixed for the dispatch
                return indices.symbol(("override", name))
            return self._opaque_shape(self._lookup(name), unsigned=name in self.module.unsigned_vars)
        if kind == "member":
            base = node.children[0]
            root = base
            while isinstance(root, Tree) and root.data == "member":
                root = root.children[0]
            if isinstance(root, Tree) and root.data == "ident_expr":
                # names and members only: evaluating them reads nothing, records nothing
                return self._opaque_shape(self._eval(base, Ctx()), str(node.children[1]))
            return indices.unknown(self._reads_unsigned(node))
        if kind == "index":
            return indices.unknown(self._reads_unsigned(node))
        if kind == "binop":
            return self._binop_shape(node)
        if kind == "unop":
            op, operand = node.children
            if str(op) == "-":
                inner = self._shape(operand)
                return indices.scale(inner, -1, inner.unsigned)
            return indices.UNKNOWN
        if kind == "call_expr":
            return self._call_shape(node)
        return indices.UNKNOWN

    def _reads_unsigned(self, node) -> bool:
        """Whether an expression reads a variable that holds only u32s (`keys[i]`)."""
        while isinstance(node, Tree) and node.data in ("index", "member"):
            node = node.children[0]
        return (isinstance(node, Tree) and node.data == "ident_expr"
                and str(node.children[0]) in self.module.unsigned_vars)

    def _opaque_shape(self, val: Val, component: str | None = None, unsigned=False) -> indices.Shape:
        """A value known only by where it comes from: a built-in input, uniform memory."""
        if val.fields is not None:
            return indices.UNKNOWN
        if val.ref is not None:
            loc = val.ref.loc
            if loc is not None and loc.space == "uniform" and not val.ref.index_deps:
                path = str(loc) + ("." + component if component else "")
                return indices.symbol(("uniform", path) + val.ref.index_texts, unsigned)
            return indices.unknown(unsigned)
        direct = [s for s in val.deps if not s.indirect]
        if len(direct) == 1 and len(val.deps) == 1 and direct[0].kind == "builtin":
            return self._builtin_shape(direct[0].name, component)
        return indices.UNKNOWN

    def _binop_shape(self, node) -> indices.Shape:
        a_node, op, b_node = node.children
        op = str(op)
        if op not in ("+", "-", "*", "&", "%", "/", ">>", "<<"):
            return indices.UNKNOWN
        a, b = self._shape(a_node), self._shape(b_node)
        unsigned = a.unsigned or b.unsigned
        c = b.lo if b.interval and b.lo == b.hi else None
        if op in ("+", "-"):
            return indices.add(a, b, 1 if op == "+" else -1)
        if op == "*":
            if c is not None:
                return indices.scale(a, c, unsigned)
            if a.interval and a.lo == a.hi:
                return indices.scale(b, a.lo, unsigned)
            if a.interval and b.interval and a.lo >= 0 and b.lo >= 0:
                return indices.span(a.lo * b.lo, a.hi * b.hi, unsigned)
            return indices.unknown(unsigned)
        if op == "&":
            if c is not None and c >= 0:
                return indices.mask(a, c, unsigned)
            if a.interval and a.lo == a.hi and a.lo >= 0:
                return indices.mask(b, a.lo, unsigned)
            return indices.unknown(unsigned)
        if c is None or c < 0:
            return indices.unknown(unsigned if op != ">>" and op != "<<" else a.unsigned)
        if op == "%":
            return indices.modulo(a, c, unsigned) if c > 0 else indices.UNKNOWN
        if op == "/":
            return indices.divide(a, c, unsigned) if c > 0 else indices.UNKNOWN
        if op == ">>":
            return indices.shift_right(a, c) if c < 32 else indices.unknown(a.unsigned)
        return indices.scale(a, 1 << c, a.unsigned) if c < 32 else indices.unknown(a.unsigned)

    def _call_shape(self, node) -> indices.Shape:
        name = str(node.children[0])
        arg_list = node.children[2].children[0]
        if name in ("atomicLoad", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicOr",
                    "atomicAnd", "atomicXor", "atomicExchange") and arg_list is not None and arg_list.children:
            pointer = (arg_list.children[0].children[1] if arg_list.children[0].data == "unop"
                       else arg_list.children[0])
            return indices.unknown(self._reads_unsigned(pointer))
        if name not in ("u32", "i32", "min", "max", "clamp", "select"):
            return indices.UNKNOWN
        args = [self._shape(a) for a in (arg_list.children if arg_list is not None else [])]
        if name in ("u32", "i32") and len(args) == 1:
            a = args[0]
            if name == "u32":
                return indices.span(0, indices.U32_MAX, True) if a.known and a.lo < 0 else replace(a, unsigned=True)
            return replace(a, unsigned=False)
        if name in ("min", "max") and len(args) == 2:
            a, b = args
            if a.interval and b.interval:
                pick = min if name == "min" else max
                return indices.span(pick(a.lo, b.lo), pick(a.hi, b.hi), a.unsigned or b.unsigned)
            return indices.hull(a, b)
        if name == "clamp" and len(args) == 3:
            x, lo, hi = args
            if lo.interval and hi.interval and lo.lo <= hi.hi:
                low = max(lo.lo, x.lo) if x.interval else lo.lo
                high = min(hi.hi, x.hi) if x.interval else hi.hi
                if low <= high:
                    return indices.span(low, high, x.unsigned or lo.unsigned)
            return indices.unknown(x.unsigned)
        if name == "select" and len(args) == 3:
            return indices.hull(args[0], args[1])
        return indices.UNKNOWN

    def _index_text(self, node) -> str:
        """An index expression's source, blanks normalized (to compare indices)."""
        text = self._texts.get(id(node))
        if text is None:
            text = self._texts[id(node)] = " ".join(self._source_text(node).split())
        return text

    def _source_text(self, node) -> str:
        meta = node.meta
        return self.text[meta.start_pos:meta.end_pos]

    # ---- calls

    def _call(self, node: Tree, ctx: Ctx, result_used: bool) -> Val:
        name = str(node.children[0])
        arg_list = node.children[2].children[0]
        arg_nodes = list(arg_list.children) if arg_list is not None else []
        site = Site.of(node)
        if name in ATOMIC_RMW or name in ("atomicLoad", "atomicStore"):
            return self._atomic(name, arg_nodes, site, ctx, result_used, self._masks.get(id(node)))
        if name in BARRIERS or name == "workgroupUniformLoad":
            self._emit_barrier(name, site, self._frames(site, ctx))
            if name == "workgroupUniformLoad" and arg_nodes:
                pointer = self._eval(arg_nodes[0], ctx)
                if pointer.ref is not None and pointer.ref.loc is not None:
                    # uniform by definition, but still computed from what was stored there
                    return Val(frozenset(s.made_uniform() for s in self._mem(pointer.ref.loc)))
            return Val()
        if name == "arrayLength":
            return Val()
        args = [self._value(a, ctx) for a in arg_nodes]
        if name in self.module.functions:
            looked_at = []  # per argument: the parameters its shape was computed from
            for i, (v, a) in enumerate(zip(args, arg_nodes)):
                if v.ref is None:
                    self._consults.append(set())
                    args[i] = Val(v.deps, None, v.is_pointer, v.fields, self._shape(a))
                    looked_at.append(self._consults.pop())
                else:
                    looked_at.append(())
            pointer_keys = frozenset(a.ref.local_key for a in args
                                     if a.is_pointer and a.ref.local_key is not None)
            for k in pointer_keys:
                self._drop_current(k)  # the callee may store through the pointer
            if pointer_keys and (self.loop_stack or self._traces):
                self._emit_pointer_call(pointer_keys, self._loop_stmts())
            result = self._call_function(name, args, site, ctx)
            sensitive = self._sensitive.get(name)
            if sensitive and self._consults:
                # the callee looks at these arguments' shapes: so does this function
                for (pname, _, _), params in zip(self.module.functions[name].params, looked_at):
                    if pname in sensitive:
                        self._consults[-1].update(params)
            return result
        if name.startswith(("subgroup", "quad")):
            # equal within a subgroup at best, not across the workgroup
            return Val(_union(args) | {_interned(Source("builtin", name + "()"))})
        return Val(_union(args))  # other built-in functions and constructors: pure

    def _frames(self, site: Site, ctx: Ctx) -> list[Frame]:
        """Entry point first: each function on the call path, the control it was under,
        and where in it the path goes on (the next call, or `site` for the last)."""
        frames = []
        for i, frame in enumerate(self.call_stack):
            last = i + 1 == len(self.call_stack)
            control = ctx.control if last else self.call_stack[i + 1].control
            where = site if last else self.call_stack[i + 1].site
            frames.append(Frame(where, frame.function, control))
        return frames

    def _atomic(self, name: str, arg_nodes, site: Site, ctx: Ctx, result_used: bool,
                mask: int | None = None) -> Val:
        if not arg_nodes:
            return Val()
        pointer = self._eval(arg_nodes[0], ctx)
        operands = [self._value(a, ctx) for a in arg_nodes[1:]]
        ref = pointer.ref
        if ref is None or ref.loc is None:
            return Val(_union(operands) | pointer.deps)
        operand_deps = _union(operands)
        operand_const = self._const(arg_nodes[1]) if len(arg_nodes) == 2 else None
        if operand_const is not None and _IDENTITY_OPERAND.get(name) == operand_const:
            name = "atomicLoad"  # changes nothing: a read written as a read-modify-write
        if ref.loc.space == "workgroup" and name != "atomicLoad":
            self._store_mem(ref.loc, operand_deps, ctx.control)
        if name == "atomicStore":
            self._access("write", True, name, ref, site, ctx, operand_deps=operand_deps,
                         operand_const=operand_const)
            return Val()
        src = _interned(Source("load", str(ref.loc), ref.loc, atomic=True,
                               rmw=None if name == "atomicLoad" else name, site=site))
        self._created(src)
        self._set_load_ref(src, ref)
        if name == "atomicCompareExchangeWeak" and operands and _plain_value(arg_nodes[1]) and any(
                s.kind == "load" and s.loc is not None and s.loc.overlaps(ref.loc)
                for s in operands[0].deps):
            # expecting exactly what was read (not `v & ~1u`, which waits for a bit to clear)
            self._note_lock_free(src)
        if name == "atomicCompareExchangeWeak" and len(arg_nodes) == 3:
            expected = self._const(arg_nodes[1])
            if expected is not None:
                self.cas_expected[src] = expected
        kind = "read" if name == "atomicLoad" else "rmw"
        self._access(kind, True, name, ref, site, ctx, result_used=result_used, source=src,
                     operand_deps=operand_deps, operand_const=operand_const, mask=mask)
        return Val(pointer.deps | ref.index_deps | {src} | self._mem(ref.loc))

    def _access(self, kind, atomic, op, ref: Ref, site: Site, ctx: Ctx, result_used=True, source=None,
                operand_deps=EMPTY, operand_const=None, mask=None):
        loc = ref.loc
        if loc.space not in ("storage", "workgroup"):
            return
        stmts = self._loop_stmts() if kind in ("write", "rmw") else None
        self._emit_access(Access(
            kind, atomic, op, loc, ref, site, self._next_seq(), ctx.guards,
            tuple(rec.key for rec in self.loop_stack), result_used, source, operand_deps,
            operand_const, mask), stmts)


def analyze(module: ModuleInfo, text: str) -> list[EntryAnalysis]:
    return [EntryWalker(module, text, name).run() for name in module.roots]
