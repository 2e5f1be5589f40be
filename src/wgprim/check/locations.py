"""Memory locations and indices: workgroup memory, and array indices as shapes.

Workgroup memory is followed by barrier intervals (`_mem`, `_store_mem`), and each array
index is kept as an `indices.Shape` (a few symbols plus a bounded rest) so that regions of
one buffer can be told apart. `LocationMixin` is a part of `analysis.EntryWalker`.
"""
from __future__ import annotations

from dataclasses import replace

from lark import Tree

from . import indices
from .model import EMPTY, Val
from .provenance import NO_BITS, Ctx, bits_or, indirect, stored_bits, through_memory
from .stored_ranges import StoredRanges, location as stored_location
from .symbols import attributes


def barrier_steps(name: str) -> int:
    """How many barrier intervals a barrier call ends: `workgroupUniformLoad` is a barrier,
    the load, and another barrier (the load's interval holds nothing else)."""
    return 2 if name == "workgroupUniformLoad" else 1


def stored_until(stores: dict | None, epoch: int) -> frozenset:
    """What a read in barrier interval `epoch` may see of a root's stores: those of that
    interval and the earlier ones (`stores` maps an interval to what was stored in it)."""
    if not stores:
        return EMPTY
    out = EMPTY
    for e, deps in stores.items():
        if e <= epoch:
            out = out | deps
    return out


def stored_ever(stores: dict | None) -> frozenset:
    return EMPTY.union(*stores.values()) if stores else EMPTY


def bits_until(stores: dict | None, epoch: int):
    """The bits (`Val.bits`) of all a read in barrier interval `epoch` may see of a root."""
    out = NO_BITS
    for e, bits in (stores or {}).items():
        if e <= epoch:
            out = bits_or(out, bits)
    return out


class BitsView:
    """`mem_bits` as the reads see it (see `MemoryView`)."""

    def __init__(self, table: dict):
        self.table = table

    def get(self, key, default=None):
        root, epoch = key
        return bits_until(self.table.get(root), epoch)


class MemoryView:
    """`mem_deps` as the reads see it: `get((root, epoch))` is what a read of `root` in that
    barrier interval may see (how a pass's reads are checked again at its end)."""

    def __init__(self, table: dict):
        self.table = table

    def get(self, key, default=EMPTY):
        root, epoch = key
        return stored_until(self.table.get(root), epoch)


class LocationMixin:
    """Workgroup memory and index shapes (a part of `EntryWalker`).

    Workgroup memory is followed by order: `mem_deps` maps a root to what was stored into
    it in each barrier interval, an interval being what lies between two barriers that
    every invocation passes (those at the top level of the entry point, calls at the top
    level included; a barrier inside a branch or a loop ends no interval). A read sees what
    its own interval and earlier ones stored: other invocations of the workgroup may be
    anywhere in the interval the reader is in, but none is past its end, and every round of
    a loop lies in one interval. So a variable that first hands out a claimed tile and,
    later, a value another workgroup published does not make the tile look like that value.
    """

    def _mem(self, loc, at: int | None = None) -> frozenset:
        """What was stored into workgroup memory at `loc` that a read in interval `at` (this
        one by default) may see; nothing for other spaces."""
        if loc.space != "workgroup":
            return EMPTY
        epoch = self.epoch if at is None else at
        value = stored_until(self.mem_deps.get(loc.root), epoch)
        self._reads.append((self._mem_view, (loc.root, epoch), value))
        if self._traces:
            self._log("mem_read", (loc.root, self.epoch - epoch, value))
        return through_memory(value)

    def _store_mem(self, loc, data: frozenset, control: frozenset, bits):
        """Store a value computed from `data` under `control`, made of the bits of `bits`
        (see `Val.bits`)."""
        deps = data | indirect(control)
        if self._traces:
            self._log("mem_store", (loc.root, deps))
        self._mem_put(loc.root, deps)
        self._bits_put(loc.root, bits)

    # (bits only grow, and None, unknown, never changes again: a read or a store of it
    # needs no record, for the convergence of the walk nor for the traces of calls)

    def _bits_put(self, root: str, bits):
        stores = self.mem_bits.get(root) or {}
        old = stores.get(self.epoch, NO_BITS)  # (nothing stored: zero, no bit set)
        if old is None:
            return
        if self._traces:
            self._log("bits_store", (root, bits))
        new = bits_or(old, bits)
        if new != old:
            stores = dict(stores)  # copied on write, as mem_deps
            stores[self.epoch] = new
            self.mem_bits[root] = stores

    def _mem_bits(self, loc, at: int | None = None):
        """The bits of all that a read at `loc` in interval `at` (this one by default) may see."""
        epoch = self.epoch if at is None else at
        value = bits_until(self.mem_bits.get(loc.root), epoch)
        if value is None:
            return None
        self._reads.append((self._bits_view, (loc.root, epoch), value))
        if self._traces:
            self._log("bits_read", (loc.root, self.epoch - epoch, value))
        return value

    def _var_bits(self, key: str):
        """The bits of all ever stored into a local variable (flow-insensitive)."""
        value = self.var_bits.get(key, EMPTY)
        if value is None:
            return None
        self._reads.append((self.var_bits, key, value))
        if self._traces:
            self._log("var_bits_read", (key, value))
        return stored_bits(value)

    def _var_bits_put(self, key: str, bits):
        old = stored_bits(self.var_bits.get(key, EMPTY))
        if old is None:
            return
        new = bits_or(old, bits)
        if new != old:  # (nothing stored reads as no bits)
            self.var_bits[key] = new
        if self._traces:
            self._log("var_bits_store", (key, bits))

    def _mem_put(self, root: str, deps: frozenset):
        stores = self.mem_deps.get(root) or {}
        old = stores.get(self.epoch, EMPTY)
        if not deps <= old:
            stores = dict(stores)  # copied on write: the reads noted keep what they saw
            stores[self.epoch] = old | deps
            self.mem_deps[root] = stores

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

    def _constant_function(self, name: str, arg_list) -> indices.Shape:
        """A call of a function without parameters whose body only returns a constant
        expression (`fn partitions_base_offset() -> u32 { return KEYVAL * RADIX; }`)."""
        fn = self.module.functions.get(name)
        if fn is None or fn.params or (arg_list is not None and arg_list.children):
            return indices.UNKNOWN
        stmts = [c for c in fn.node.children[-1].children[1:] if isinstance(c, Tree)]
        if len(stmts) != 1 or stmts[0].data != "return_stmt" or stmts[0].children[0] is None:
            return indices.UNKNOWN
        value = self._const(stmts[0].children[0])
        return indices.point(value, self._unsigned_literal(stmts[0].children[0]) or value >= 0) \
            if value is not None else indices.UNKNOWN

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
                    if val.ref is not None and val.ref.local_key in self._counter_ranges:
                        return self._counter_ranges[val.ref.local_key]  # `for (var p = 0u; p < 4u; p++)`
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
            where = stored_location(self.module, node)
            bounded = self._stored_range(*where) if where is not None else None
            return bounded if bounded is not None else indices.unknown(self._reads_unsigned(node))
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

    def _stored_range(self, root: str, path: tuple):
        """A load's range when every store of the location in the module is bounded."""
        ranges = self.__dict__.get("_ranges")
        if ranges is None:
            ranges = self._ranges = StoredRanges(self.module, self._const, self._unsigned_literal)
        return ranges.shape(root, path)

    def _opaque_shape(self, val: Val, component: str | None = None, unsigned=False) -> indices.Shape:
        """A value known only by where it comes from: a built-in input, uniform memory."""
        if val.fields is not None:
            return indices.UNKNOWN
        if val.ref is not None:
            loc = val.ref.loc
            if loc is not None and loc.space == "uniform" and not val.ref.index_deps:
                path = str(loc) + ("." + component if component else "")
                return indices.symbol(("uniform", path) + val.ref.index_texts, unsigned)
            if loc is not None and loc.space == "storage":
                bounded = self._stored_range(loc.root, loc.path + ((component,) if component else ()))
                if bounded is not None:
                    return bounded
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
            return self._constant_function(name, arg_list)
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
