"""Value provenance: what each expression's value depends on.

A value is a `model.Val`: the set of `Source`s it is computed from (built-in inputs, memory
reads, variables), plus what it points at when it is a reference. `ProvenanceMixin` (a part
of `analysis.EntryWalker`) evaluates expressions, calls and atomics, and records each
memory access in program order with the atomic reads that guard it.
"""
from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Tree

from .model import ATOMIC_RMW, BARRIERS, EMPTY, Access, Frame, Ref, Site, Source, Val
from . import indices


@dataclass(frozen=True)
class Ctx:
    control: frozenset = EMPTY  # what decides whether this code runs (this function only)
    guards: frozenset = EMPTY  # atomic reads among those, callers' included


_ATOMIC_READS: dict = {}


def atomic_reads(deps: frozenset) -> frozenset:
    out = _ATOMIC_READS.get(deps)
    if out is None:
        if len(_ATOMIC_READS) > 50000:
            _ATOMIC_READS.clear()
        out = _ATOMIC_READS[deps] = frozenset(s.direct() for s in deps if s.kind == "load" and s.atomic)
    return out


_INDIRECT: dict = {}


def indirect(control: frozenset) -> frozenset:
    """`control` as sources reached through a condition only (memoized: control sets repeat)."""
    out = _INDIRECT.get(control)
    if out is None:
        if len(_INDIRECT) > 50000:
            _INDIRECT.clear()
        out = _INDIRECT[control] = frozenset(s.through_control() for s in control)
    return out


_MEMORY: dict = {}


def through_memory(deps: frozenset) -> frozenset:
    """`deps` as reached through workgroup memory: its variables marked so (the flag matters
    for nothing else; memoized)."""
    out = _MEMORY.get(deps)
    if out is None:
        if len(_MEMORY) > 50000:
            _MEMORY.clear()
        if any(s.kind == "var" and not s.memory for s in deps):
            out = frozenset(s.through_memory() if s.kind == "var" else s for s in deps)
        else:
            out = deps
        _MEMORY[deps] = out
    return out


# `Val.bits`: (reads, constant): every bit set in the value was set in one of the reads when
# it was read, or is a bit of the constant; None: not known
NO_BITS = (EMPTY, 0)  # zero: workgroup memory and variables before anything is stored


def bits_or(a, b):
    """The bits of `a | b` (or of a value that may be either)."""
    return None if a is None or b is None else (a[0] | b[0], a[1] | b[1])


def bits_and(a, b):
    """The bits of `a & b`: within those of either side."""
    if a is None or b is None:
        return a if b is None else b
    return a[0] | b[0], a[1] & b[1]


def stored_bits(value):
    """A table's entry as bits: nothing stored (EMPTY) is zero."""
    return NO_BITS if isinstance(value, frozenset) else value


_BOUNDED: dict = {}


def lower_bounded(deps: frozenset) -> frozenset:
    """`deps` as the larger side of a comparison: its atomic loads marked as lower bounds."""
    out = _BOUNDED.get(deps)
    if out is None:
        if len(_BOUNDED) > 50000:
            _BOUNDED.clear()
        out = _BOUNDED[deps] = frozenset(
            s.as_lower_bound() if s.kind == "load" and s.atomic and s.rmw is None else s for s in deps)
    return out


_SOURCES: dict = {}


def interned(src: Source) -> Source:
    """One object per distinct source: sets of them then compare by identity."""
    if len(_SOURCES) > 100000:
        _SOURCES.clear()
    return _SOURCES.setdefault(src, src)


def _plain_value(node) -> bool:
    """An expression that passes a value on unchanged: a name, a member (`r.old_value`) or
    a call (`atomicLoad(&x)`), not arithmetic on it."""
    while isinstance(node, Tree) and node.data == "paren":
        node = node.children[0]
    return isinstance(node, Tree) and node.data in ("ident_expr", "member", "call_expr")


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


def union(vals) -> frozenset:
    out = EMPTY
    for v in vals:
        out |= v.deps
    return out


NOTHING = Val()  # a value that depends on nothing (shared: Vals are never changed in place)


class ProvenanceMixin:
    """What each expression depends on, and the memory accesses it makes (a part of `EntryWalker`)."""

    def _value(self, node, ctx: Ctx) -> Val:
        val = self._eval(node, ctx)
        if val.ref is not None and not val.is_pointer:
            return self._load(val, node, ctx)
        return val

    def _load(self, val: Val, node, ctx: Ctx) -> Val:
        ref = val.ref
        if ref.local_key is not None:
            deps = (val.deps | ref.index_deps | {interned(Source("var", ref.local_key))}
                    | self._var_value(ref.local_key))
            return Val(deps, bits=self._var_bits(ref.local_key))
        site = Site.of(node)
        src = interned(Source("load", str(ref.loc), ref.loc, site=site))
        self._created(src)
        self._set_load_ref(src, ref)
        self._access("read", False, None, ref, site, ctx, source=src)
        bits = self._mem_bits(ref.loc) if ref.loc.space == "workgroup" else (frozenset({src}), 0)
        return Val(val.deps | ref.index_deps | {src} | self._mem(ref.loc), bits=bits)

    def _created(self, src: Source):
        for rec in self.loop_stack:
            rec.created_loads.add(src)
        if self._created_log:
            self._created_log[-1].add(src)
        if self._traces:
            self._log("created", src)

    def _eval(self, node, ctx: Ctx) -> Val:
        if isinstance(node, Token):
            return NOTHING
        kind = node.data
        if kind == "ident_expr":
            return self._lookup(str(node.children[0]))
        if kind == "literal":
            return NOTHING
        if kind == "binop":
            op = str(node.children[1])
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
            a, b = self._value(node.children[0], ctx), self._value(node.children[2], ctx)
            if op in ("==", "!="):
                self._note_compared(a, node.children[2])
                self._note_compared(b, node.children[0])
            if op in (">=", ">"):  # `atomicLoad(&count) >= CAP`: the load is a lower bound here
                return Val(lower_bounded(a.deps) | b.deps)
            if op in ("<=", "<"):
                return Val(a.deps | lower_bounded(b.deps))
            bits = None
            if op in ("&", "|"):
                ab, bb = (v.bits if v.bits is not None else self._constant_bits(n)
                          for v, n in ((a, node.children[0]), (b, node.children[2])))
                bits = bits_and(ab, bb) if op == "&" else bits_or(ab, bb)
            return Val(a.deps | b.deps, bits=bits)
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

    def _note_compared(self, val: Val, other) -> None:
        """`old == FREE` on the value an exchange returned: what the claimer tests for."""
        c = self._const(other)
        if c is None:
            return
        for src in val.deps:
            if src.kind == "load" and src.rmw in ("atomicExchange", "atomicCompareExchangeWeak") and not src.indirect:
                self.compared.setdefault(src.direct(), set()).add(c)

    def _constant_bits(self, node):
        c = self._const(node)
        return (EMPTY, c) if c is not None and c >= 0 else None

    def _const(self, node) -> int | None:
        """The value of an integer constant expression (literals, module `const`s,
        arithmetic and bit operators, u32()/i32()), else None."""
        key = id(node)
        if key not in self._consts:
            self._consts[key] = None  # also stops a `const` defined by itself
            self._consts[key] = _const_value(node, self)
        return self._consts[key]

    def _call(self, node: Tree, ctx: Ctx, result_used: bool) -> Val:
        name = str(node.children[0])
        arg_list = node.children[2].children[0]
        arg_nodes = list(arg_list.children) if arg_list is not None else []
        site = Site.of(node)
        if name in ATOMIC_RMW or name in ("atomicLoad", "atomicStore"):
            return self._atomic(name, arg_nodes, site, ctx, result_used, self._masks.get(id(node)))
        if name in BARRIERS or name == "workgroupUniformLoad":
            before = self.epoch
            self._emit_barrier(name, site, self._frames(site, ctx))
            if name == "workgroupUniformLoad" and arg_nodes:
                pointer = self._eval(arg_nodes[0], ctx)
                if pointer.ref is not None and pointer.ref.loc is not None:
                    # uniform by definition, but still computed from what was stored there
                    # (read between its two barriers)
                    at = before + 1 if self.epoch > before else before
                    return Val(frozenset(s.made_uniform() for s in self._mem(pointer.ref.loc, at)),
                               bits=self._mem_bits(pointer.ref.loc, at))
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
            return Val(union(args) | {interned(Source("builtin", name + "()"))})
        if not result_used:
            self._note_use(union(args))  # made for its effect (textureStore): what it uses
        if name in ("u32", "i32") and len(args) == 1:
            return Val(args[0].deps, bits=args[0].bits)  # (the same bits)
        return Val(union(args))  # other built-in functions and constructors: pure

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
            return Val(union(operands) | pointer.deps)
        operand_deps = union(operands)
        operand_const = self._const(arg_nodes[1]) if len(arg_nodes) == 2 else None
        if name == "atomicCompareExchangeWeak" and len(arg_nodes) == 3:
            operand_const = self._const(arg_nodes[2])  # the value it stores when it exchanges
        if operand_const is not None and _IDENTITY_OPERAND.get(name) == operand_const:
            name = "atomicLoad"  # changes nothing: a read written as a read-modify-write
        if ref.loc.space == "workgroup" and name != "atomicLoad":
            self._store_mem(ref.loc, operand_deps, ctx.control, None)
        operand_bits = None
        if len(operands) == 1:
            operand_bits = operands[0].bits if operands[0].bits is not None else self._constant_bits(arg_nodes[1])
        if name == "atomicStore":
            self._access("write", True, name, ref, site, ctx, operand_deps=operand_deps,
                         operand_const=operand_const)
            return Val()
        src = interned(Source("load", str(ref.loc), ref.loc, atomic=True,
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
                     operand_deps=operand_deps, operand_const=operand_const, mask=mask,
                     operand_bits=operand_bits)
        bits = (frozenset({src}), 0) if name in ("atomicLoad", "atomicOr") else None
        return Val(pointer.deps | ref.index_deps | {src} | self._mem(ref.loc), bits=bits)

    def _access(self, kind, atomic, op, ref: Ref, site: Site, ctx: Ctx, result_used=True, source=None,
                operand_deps=EMPTY, operand_const=None, mask=None, operand_bits=None):
        loc = ref.loc
        if loc.space not in ("storage", "workgroup"):
            return
        stmts = self._loop_stmts() if kind in ("write", "rmw") else None
        self._emit_access(Access(
            kind, atomic, op, loc, ref, site, self._next_seq(), ctx.guards,
            tuple(rec.key for rec in self.loop_stack), result_used, source, operand_deps,
            operand_const, mask, operand_bits, context=self.context), stmts)


def mark_reraised_bits(accesses: list, load_refs: dict):
    """For each `atomicOr(&w, v)` whose operand is made of bits just read from `w` itself and
    constant bits (`Val.bits`: `let f = atomicLoad(&w) & MASK; atomicOr(&w, f | OTHER)`,
    also through variables and workgroup memory), when nothing else in the entry point
    changes `w` but atomicOr: the bits read were set when read and nothing clears them, so
    the OR can only newly set the constant's (`Access.sets_bits`; none: it leaves the word
    as it was)."""
    for access in accesses:
        if access.op != "atomicOr" or access.operand_bits is None:
            continue
        reads, constant = access.operand_bits
        ref = access.ref
        if not all(s.kind == "load" and s.rmw in (None, "atomicOr") and s.loc is not None
                   and s.loc.overlaps(access.loc) and s in load_refs
                   and load_refs[s].index_texts == ref.index_texts for s in reads):
            continue
        if any(w.kind in ("write", "rmw") and w.op != "atomicOr" and w.ref.same_place(ref)
               for w in accesses):
            continue
        access.sets_bits = constant


def lower_bound_reads(cond_deps: dict, accesses: list, uses, bounded_exits: set) -> tuple[set, set]:
    """(atomic loads whose value is only ever the larger side of a comparison, those of them
    tested only by the exits of loops that do not wait), followed through the data flow
    (`Source.bound`) to every place a value is used: conditions, the values and indices of
    memory accesses, what is made for its effect alone (`uses`)."""
    plain, tested, elsewhere = set(), set(), set()

    def scan(deps, in_exit):
        for s in deps:
            if s.kind != "load" or not s.atomic:
                continue
            if not s.bound:
                plain.add(s.direct())
            else:
                tested.add(s.direct())
                if not in_exit:
                    elsewhere.add(s.direct())

    for node_id, deps in cond_deps.items():
        scan(deps, node_id in bounded_exits)
    for access in accesses:
        scan(access.operand_deps, False)
        scan(access.ref.index_deps, False)
    for deps in uses:
        scan(deps, False)
    lower = tested - plain
    return lower, lower - elsewhere
