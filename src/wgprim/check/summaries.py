"""Interprocedural summaries: each call walked once, then replayed where its inputs repeat.

Functions that only compute (`is_pure`) are walked once per pass for each distinct set of
argument dependencies. Every other call is kept as a `Trace`: its first walk records what
it does (accesses, barriers, loops, stores, reads, what it adds to the loops around the
call) relative to its call site; a call with the same arguments and guards, at another
site or in a later pass, replays the trace there when everything it read still holds
(`_replay`): the same events, with the call path, sequence numbers and enclosing loops of
the new site. The `_emit_*` and `_note_*` methods are where the walk records an event, so
that the traces being recorded log it too. `SummaryMixin` is a part of
`analysis.EntryWalker`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Tree

from .model import BARRIERS, EMPTY, Access, Barrier, Frame, Ref, Site, Source, Val
from .locations import barrier_steps, bits_until, stored_until
from .progress import LOCK_FREE, LoopRecord
from .provenance import Ctx, union
from .symbols import ModuleInfo
from .trees import subtrees

MAX_CALL_DEPTH = 24


# replay traces of calls (see Trace); off, every call is walked (what the tests compare with)
REPLAY = True


@dataclass
class Trace:
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


_PURE: dict = {}


def is_pure(module: ModuleInfo, name: str) -> bool:
    """Whether a function only computes: no pointer parameters, no writes outside its own
    variables, no atomics, no barriers, no reads of read_write storage, and only calls to
    such functions. What it returns then depends on its arguments alone, and walking it
    again at another call site records nothing a rule reads."""
    # (memoized per module: the module itself is kept with its answers, so that another
    # module given the same id once this one is gone never reads them)
    memo = _PURE.get(id(module))
    if memo is None or memo[0] is not module:
        if len(_PURE) > 1000:
            _PURE.clear()
        memo = _PURE[id(module)] = (module, {})
    answers = memo[1]
    if name not in answers:
        answers[name] = False  # recursion is not pure
        answers[name] = _compute_pure(module, name)
    return answers[name]


def _compute_pure(module: ModuleInfo, name: str) -> bool:
    fn = module.functions[name]
    if any(ptype is not None and "ptr" in str(ptype.children[0]) for _, ptype, _ in fn.params):
        return False
    local = {p for p, _, _ in fn.params}
    for node in subtrees(fn.node):
        if node.data in ("var_decl", "let_decl", "const_decl"):
            typed = node.children[1] if node.data == "var_decl" else node.children[0]
            local.add(str(typed.children[0]))
    for node in subtrees(fn.node):
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
            if callee in module.functions and not is_pure(module, callee):
                return False
        elif node.data == "ident_expr":
            loc = module.globals.get(str(node.children[0]))
            if loc is not None and str(node.children[0]) not in local and (
                    loc.writable_storage or loc.space == "private"):
                return False
    return True


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


def _moved(access: Access, seq: int, loops: tuple, context: tuple) -> Access:
    """`access` as it happens at another point of the walk."""
    return Access(access.kind, access.atomic, access.op, access.loc, access.ref, access.site, seq,
                  access.guards, loops, access.result_used, access.source, access.operand_deps,
                  access.operand_const, access.mask, access.operand_bits, context=context)


_CALL_GRAPHS: dict = {}


def call_graph(module: ModuleInfo, name: str) -> tuple[frozenset, int | None]:
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
    for node in subtrees(module.functions[name].node):
        if node.data in ("call_expr", "call_stmt"):
            callee = str(node.children[0])
            if callee in module.functions:
                sub_reach, sub_height = call_graph(module, callee)
                reach |= sub_reach | {callee}
                height = None if height is None or sub_height is None else max(height, sub_height + 1)
    memo[name] = (frozenset(reach), height)
    return memo[name]


class SummaryMixin:
    """Calls walked once and replayed, and the events a trace records (a part of `EntryWalker`)."""

    def _call_function(self, name: str, args: list[Val], call_site: Site | None, caller: Ctx) -> Val:
        fn = self.module.functions[name]
        if name in self.active or len(self.active) > MAX_CALL_DEPTH:
            return Val(union(args))
        if call_site is None:
            return self._walk_function(name, fn, args, call_site, caller)
        if is_pure(self.module, name) and all(a.ref is None and a.fields is None for a in args):
            # a function that only computes (see is_pure): walked once per pass for each
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
        trace = Trace(name, len(self.loop_stack), len(self.call_stack), len(self.context),
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

    def _replayable(self, name: str, args: list[Val]) -> bool:
        """Whether what a walk of `name` does depends only on what `_trace_key` holds: no
        struct of built-ins passed, no recursion, no call chain cut by MAX_CALL_DEPTH."""
        if not REPLAY or any(a.fields is not None for a in args):
            return False
        reach, height = call_graph(self.module, name)
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
        # (a call at the top level counts its barriers as ends of barrier intervals)
        return name, tuple(parts), caller.guards, self.depth == 0

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

    def _replay(self, trace: Trace, call_site: Site, caller: Ctx) -> bool:
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
                                         tuple(rec.key for rec in self.loop_stack),
                                         prefix + payload.context[cut:]), stmts)
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
                name, site, frames, counted = payload
                self._emit_barrier(name, site, outer_frames + frames[trace.stack_len:], counted)
            elif kind == "enter":
                node, key, depth, seen_divergence, seen_stores = payload
                self._enter_loop(LoopRecord(here(key), node, self.seq + 1, depth=depth + depth_shift),
                                 seen_divergence, seen_stores)
            elif kind == "exit":
                self._exit_loop(payload)
            elif kind == "var_read":
                self._reads.append((self.var_deps,) + payload)
                if self._traces:
                    self._log(kind, payload)  # what a trace around this call depends on
            elif kind == "mem_read":
                root, back, value = payload
                self._reads.append((self._mem_view, (root, self.epoch - back), value))
                if self._traces:
                    self._log(kind, payload)
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
                self._mem_put(root, deps)
                if self._traces:
                    self._log(kind, payload)
            elif kind == "bits_store":
                self._bits_put(*payload)
            elif kind == "bits_read":
                root, back, value = payload
                self._reads.append((self._bits_view, (root, self.epoch - back), value))
                if self._traces:
                    self._log(kind, payload)
            elif kind == "var_bits_store":
                self._var_bits_put(*payload)
            elif kind == "var_bits_read":
                self._reads.append((self.var_bits,) + payload)
                if self._traces:
                    self._log(kind, payload)
            elif kind == "use":
                self._note_use(payload)
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
        epoch = self.epoch  # the barrier interval the replay will be in
        i, n = 0, len(events)
        while i < n:
            kind, payload, _ = events[i]
            if kind == "var_read":
                if self.var_deps.get(payload[0], EMPTY) != payload[1]:
                    return False
            elif kind == "bits_read":
                root, back, value = payload
                if bits_until(self.mem_bits.get(root), epoch - back) != value:
                    return False
            elif kind == "var_bits_read":
                if self.var_bits.get(payload[0], EMPTY) != payload[1]:
                    return False
            elif kind == "barrier":
                if payload[3]:
                    epoch += barrier_steps(payload[0])
            elif kind == "mem_read":
                root, back, value = payload
                if stored_until(self.mem_deps.get(root), epoch - back) != value:
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
            op = LOCK_FREE if access.source is not None and access.source in self.lock_free else access.op
            for rec, stmt in zip(self.loop_stack, stmts):
                rec.writes.append((stmt, access.ref, op, access.operand_const))
        self.result.accesses.append(access)
        if self._traces:
            self._log("access", access, stmts)

    def _emit_barrier(self, name: str, site: Site, frames: list, counted: bool | None = None):
        """Record a barrier; one at the top level of the entry point (`counted`) ends a
        barrier interval of workgroup memory (see LocationMixin)."""
        for rec in self.loop_stack:
            rec.barrier = True
        if counted is None:
            counted = self.depth == 0
        self.result.barriers.append(Barrier(name, site, self._next_seq(), frames, counted))
        if counted:
            self.epoch += barrier_steps(name)
        if self._traces:
            self._log("barrier", (name, site, frames, counted))

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

    def _enter_loop(self, rec: LoopRecord, seen_divergence: frozenset, seen_stores: tuple):
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

    def _note_use(self, deps: frozenset):
        """What a value made only for its effect depends on (see `model.EntryAnalysis.lower_bound_reads`)."""
        self.uses.add(deps)
        if self._traces:
            self._log("use", deps)

    def _note_mask(self, src: Source, mask: int):
        self.name_masks[src] = self.name_masks.get(src, 0) | mask
        if self._traces:
            self._log("mask", (src, mask))

    def _note_lock_free(self, src: Source):
        self.lock_free.add(src)
        if self._traces:
            self._log("lock_free", src)

    def _note_condition(self, node_id: int, deps: frozenset):
        self.cond_deps[node_id] = self.cond_deps.get(node_id, EMPTY) | deps
        if self._traces:
            self._log("cond", (node_id, deps))
