"""The dataflow walk of each entry point: statements, functions and loops, in program order.

`EntryWalker` walks each compute entry point (and each fragment entry point beside one)
with its calls followed into the callees. It tracks, for every value, the set of `Source`s
it depends on (built-in inputs, memory reads, loop counters) and records in program order
the memory accesses, the barriers and the loops (`model.EntryAnalysis`). Local variables
are followed in order through straight-line code; what a loop stores reaches every round.
The walk repeats until what variables and workgroup memory may hold stops growing; the
events of the last pass are what the rules read, and each loop is judged once, then
(`progress.waited_storage`).

The walker is put together from one part per concern:
- `provenance`: what each expression depends on, and the accesses it makes;
- `locations`: workgroup memory (followed by order) and array indices as shapes;
- `summaries`: calls walked once and replayed at other call sites;
- `progress` (with `loops` and `rounds`): whether a loop can wait for another invocation.

Speed, without changing what is recorded (tests/check/test_summaries.py compares with the
plain walk, event for event): every read of what earlier passes stored is noted, and a
pass whose reads all still hold at its end is the last one; a loop (inside no other) whose
round changed what the round read is walked again at once, the records of the first round
undone (`_mark`, `_rewind`), so that loop-carried values settle within a pass.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from lark import Tree

from . import indices, loops
from .locations import BitsView, LocationMixin, MemoryView
from .model import (EMPTY, NONUNIFORM_BUILTINS, WORKGROUP_IDENTITY_BUILTINS, EntryAnalysis, Frame, LoopReport,
                    Ref, Site, Source, Val)
from .depth import lookback_walks
from .phases import PhaseMap
from .progress import LoopRecord, waited_storage
from .provenance import (NO_BITS, Ctx, ProvenanceMixin, atomic_reads, indirect, interned, lower_bound_reads, mark_reraised_bits,
                         union)
from .summaries import SummaryMixin, Trace
from .symbols import ModuleInfo, type_name
from .trees import assigned_names, subtrees

MAX_PASSES = 12


LOOP_ROUNDS = 2  # walks of a loop within one pass, at most (more cost more than the passes they save)


ROUND_NESTING = 1  # only a loop inside no other (its callers' included) gets a second round


@dataclass
class Flow:
    """How a statement can end: falls through, and/or leaves early (return, break, ...)."""

    falls: bool = True
    leaves: frozenset = frozenset()  # subset of {"return", "break", "continue"}
    divergence: frozenset = EMPTY  # what decides whether it leaves early
    waited: frozenset = EMPTY  # atomic reads a loop waited on: they guard what follows
    guards: frozenset = EMPTY  # guards in force where the block ends (for callers of a function)


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
    epoch: int
    current: dict
    recs: list
    traces: list


class EntryWalker(SummaryMixin, ProvenanceMixin, LocationMixin):
    def __init__(self, module: ModuleInfo, text: str, entry: str):
        self.module = module
        self.text = text
        self.entry = entry
        self.var_deps: dict[str, frozenset] = {}
        # workgroup memory, flow-insensitive like variables: root name -> what was stored
        self.mem_deps: dict[str, dict] = {}  # see LocationMixin
        # workgroup memory -> barrier interval -> the bits (`Val.bits`) of what was stored there
        self.mem_bits: dict[str, dict] = {}
        self._bits_view = BitsView(self.mem_bits)
        self.var_bits: dict[str, tuple | None] = {}  # local variable -> the bits of all stored into it
        self._mem_view = MemoryView(self.mem_deps)
        self.loop_divergence: dict[tuple, frozenset] = {}
        self.cond_deps: dict[int, frozenset] = {}
        self.uses: set[frozenset] = set()  # values used for their effect alone (entry outputs, textureStore)
        self.load_refs: dict[Source, Ref] = {}  # where each read reads (its index)
        # compare-exchanges whose expected value is a read of the same word: lock-free
        # updates that fail only when someone else succeeded, not waits
        self.lock_free: set[Source] = set()
        # compare-exchanges with a constant expected value (`atomicCompareExchangeWeak(&slot[i], 0u, 1u)`)
        self.cas_expected: dict[Source, int] = {}
        # exchange or compare-exchange results -> the constants they are compared with
        # (`if (old == FREE)`): what a claimer tests the word for
        self.compared: dict[Source, set] = {}
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
        # the variable of a `for` loop that runs over constants -> its values in the body
        self._counter_ranges: dict[str, indices.Shape] = {}
        self._module_vals: dict[str, Val] = {}  # what a module-scope name evaluates to
        # (function, its inputs) -> Trace; kept from pass to pass: a trace is replayed only
        # where what its walk read (variables, workgroup memory, loop state, summaries of
        # pure calls) still holds what it held
        self._trace_memo: dict = {}

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
        mark_reraised_bits(self.result.accesses, self.load_refs)
        bounded_exits = set()  # the conditions of the exits of loops that do not wait
        for rec in self.loops_seen:
            waited = waited_storage(self, rec)
            if waited:
                self.result.spin_loops.append(LoopReport(rec.key, Site.of(rec.node), waited,
                                                         rec.seq_start, rec.seq_end))
            else:
                bounded_exits |= {id(cond) for conds in loops.exits(rec.node) for cond in conds}
        self.result.lookback_walks = lookback_walks(self)
        self.result.lower_bound_reads, self.result.best_effort_reads = lower_bound_reads(
            self.cond_deps, self.result.accesses, self.uses, bounded_exits)
        # (a loop waiting for memory presumes someone else: not written for one invocation)
        self.result.single_invocation = self._workgroup_size() == 1 and not self.result.spin_loops and not any(
            s.kind == "builtin" and s.name in WORKGROUP_IDENTITY_BUILTINS | NONUNIFORM_BUILTINS
            for a in self.result.accesses for s in a.ref.index_deps)
        return self.result

    def _pass(self):
        self._summaries = {}  # what variables hold may have grown since the last pass
        self._created_log = []
        self.result = EntryAnalysis(self.entry, self.module.functions[self.entry].stage,
                                    load_refs=self.load_refs, compared=self.compared)
        self.loops_seen: list[LoopRecord] = []
        self.seq = 0
        self.context: tuple = ()
        self.call_stack: list[Frame] = []
        self.loop_stack: list[LoopRecord] = []
        self.active: list[str] = []
        self.stmt_id = 0
        self.caller_stmts: list[int] = []  # the statement each active call is made from
        self.call_guards = EMPTY  # guards a called function leaves in force (a lock it took)
        self._summaries: dict = {}  # (pure function, argument deps) -> (result, reads it made)
        self._created_log: list[set] = []
        self._traces: list[Trace] = []  # the calls being recorded, innermost last
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
        self.epoch = 0  # barrier intervals passed (see LocationMixin)
        self.decl_depth: dict[str, int] = {}
        self.returns: list[Val] = []
        self.cond_deps = {}
        self.uses = set()
        fn = self.module.functions[self.entry]
        args = [self._entry_param(name, ptype, builtin) for name, ptype, builtin in fn.params]
        result = self._call_function(self.entry, args, None, Ctx())
        self._note_use(result.deps)  # what the entry point returns (a fragment's color)

    def _entry_param(self, name, ptype, builtin) -> Val:
        if builtin:
            return Val(frozenset({interned(Source("builtin", builtin))}))
        members = self.module.structs.get(type_name(ptype) or "")
        if members:
            fields = {m: Val(frozenset({Source("builtin", b)}) if b else EMPTY) for m, b in members.items()}
            return Val(union(fields.values()), fields=fields)
        return Val()

    def _next_seq(self) -> int:
        self.seq += 1
        return self.seq

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
        result = Val(union(self.returns))
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
        deps = data | indirect(control)
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
        for name in assigned_names(node):
            ref = self._lookup(name).ref
            if ref is not None and ref.local_key is not None and ref.local_key in self.current:
                key = ref.local_key
                stored = self.loop_stores.get((loop_key, key), EMPTY)
                seen.append((key, stored))
                self._set_current(key, self.current[key] | stored)
        return tuple(seen)

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
                ctx = Ctx(ctx.control | f.divergence, ctx.guards | atomic_reads(f.divergence))
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
        value = self._value(init, ctx) if init is not None else None
        data = value.deps if value is not None else EMPTY
        self._declare(key)
        if value is not None:
            self._var_bits_put(key, value.bits)
        # not the control it is declared under: the variable lives in this block, and every
        # use of it runs under that control anyway (so a `var` made in a loop's body does not
        # take on the loop's exit condition, just as a `let` does not)
        self._store_var(key, data, EMPTY, declare=True)
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
            val = Val(val.deps, None, val.is_pointer, val.fields, shape, val.bits)
        self.scopes[-1][name] = val
        return Flow()

    def _used_names(self, function: str) -> set:
        used = self._used.get(function)
        if used is None:
            node = self.module.functions[function].node
            used = self._used[function] = {str(n.children[0]) for n in subtrees(node)
                                           if n.data in ("ident_expr", "lhs_ident")}
        return used

    _stmt_const_decl = _stmt_let_decl

    def _stmt_assign(self, stmt, ctx):
        self._assign(stmt.children[0], self._value(stmt.children[1], ctx), ctx, compound=False,
                     value_node=stmt.children[1])
        return Flow()

    def _stmt_compound_assign(self, stmt, ctx):
        value = self._value(stmt.children[2], ctx)
        op = str(stmt.children[1])
        # what the stored value's bits add: `x |= v` v's, `x &= v` none; otherwise unknown
        added = value.bits if op == "|=" else NO_BITS if op == "&=" else None
        if added is None and op == "|=":
            added = self._constant_bits(stmt.children[2])
        self._assign(stmt.children[0], Val(value.deps, bits=added), ctx, compound=True)
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

    def _assign(self, lhs, val: Val, ctx: Ctx, compound: bool, value_node=None):
        target = self._eval(lhs, ctx)
        ref = target.ref
        if ref is None:
            return
        if ref.local_key is not None:
            self._store_var(ref.local_key, val.deps | ref.index_deps, ctx.control)
            # (a compound assignment's `val.bits` are what it adds to what the variable held)
            self._var_bits_put(ref.local_key, val.bits)
            # (a variable seen through workgroup memory is not read here: what memory holds is
            # followed by barrier intervals only, and a slot reused for something else must not
            # make a loop's wait look like a counter it advances)
            reads = frozenset(s.name for s in val.deps if s.kind == "var" and not s.indirect and not s.memory)
            loads = frozenset(s for s in val.deps if s.kind == "load" and not s.indirect)
            if self.loop_stack or self._traces:
                self._emit_assignment((ref.local_key, reads, compound, loads), self._loop_stmts())
        elif ref.loc is not None:
            if compound:
                self._load(target, lhs, ctx)
            if ref.loc.space == "workgroup":
                self._store_mem(ref.loc, val.deps, ctx.control, val.bits)
            self._access("write", False, None, ref, Site.of(lhs), ctx, operand_deps=val.deps,
                         operand_const=None if compound or value_node is None else self._const(value_node))

    def _condition(self, node, ctx: Ctx) -> frozenset:
        deps = self._value(node, ctx).deps
        self._note_condition(id(node), deps)
        return deps

    def _stmt_if_stmt(self, stmt, ctx):
        _attrs, cond, then, other = stmt.children
        deps = self._condition(cond, ctx)
        inner = Ctx(ctx.control | deps, ctx.guards | atomic_reads(deps))
        self.depth += 1
        flows = [self._stmt(then, inner)]
        flows.append(self._stmt(other, inner) if other is not None else Flow())
        self.depth -= 1
        return self._merge(flows, deps)

    def _stmt_switch_stmt(self, stmt, ctx):
        deps = self._condition(stmt.children[1], ctx)
        inner = Ctx(ctx.control | deps, ctx.guards | atomic_reads(deps))
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

    def _stmt_loop_stmt(self, stmt, ctx):
        return self._loop(stmt, ctx)

    def _stmt_while_stmt(self, stmt, ctx):
        return self._loop(stmt, ctx)

    def _stmt_for_stmt(self, stmt, ctx):
        self.scopes.append({})
        init = stmt.children[1]
        if init is not None:
            self._stmt(init, ctx)
            counter = loops.counter_range(stmt, self._const, assigned_names)
            if counter is not None:  # its values in the body, for index shapes
                name, lo, hi = counter
                unsigned = self._unsigned_literal(init.children[2]) or type_name(init.children[1].children[1]) == "u32"
                self._counter_ranges[self.scopes[-1][name].ref.local_key] = indices.span(lo, hi, unsigned)
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
                     len(self.returns), len(self._reads), len(self._summaries), self.call_guards, self.epoch,
                     dict(self.current),
                     [(rec, len(rec.writes), len(rec.assignments), len(rec.pointer_calls))
                      for rec in self.loop_stack],
                     [(t, len(t.events), dict(t.current)) for t in self._traces])

    def _rewind(self, mark: "_Mark"):
        """Undo what the walk recorded since `mark` (the tables keep what it stored: they
        only grow)."""
        self.seq = mark.seq
        self.epoch = mark.epoch
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
        rec = LoopRecord(key, stmt, self.seq + 1, depth=len(self.caller_stmts))
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
                    waited=atomic_reads(self.loop_divergence[key]))

    def _stmt_in(self, rec: LoopRecord) -> int:
        """The statement of the loop's own function that is running now (a call, when the
        walk is inside a callee)."""
        return self.stmt_id if len(self.caller_stmts) == rec.depth else self.caller_stmts[rec.depth]


def analyze(module: ModuleInfo, text: str) -> list[EntryAnalysis]:
    results, phases = [], None
    for name in module.roots:
        walker = EntryWalker(module, text, name)
        result = walker.run()
        if phases is None:
            phases = PhaseMap(module, walker._const)
        result.phases = phases
        results.append(result)
    return results
