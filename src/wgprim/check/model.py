"""Values and events that the dataflow walk (`analysis.py`) produces and the rules read."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import indices

# Built-in inputs whose value differs between invocations of one workgroup.
NONUNIFORM_BUILTINS = {
    "local_invocation_id", "local_invocation_index", "global_invocation_id",
    "subgroup_invocation_id", "subgroup_id", "sample_index", "sample_mask", "position", "front_facing",
    "vertex_index", "instance_index",
}
# Built-in inputs that tell workgroups apart: an index built from them selects "this
# workgroup's own" part of a buffer.
WORKGROUP_IDENTITY_BUILTINS = {"workgroup_id", "global_invocation_id"}

ATOMIC_RMW = {
    "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicAnd", "atomicOr", "atomicXor",
    "atomicExchange", "atomicCompareExchangeWeak",
}
ACCUMULATING_RMW = {"atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicAnd", "atomicOr", "atomicXor"}
BARRIERS = {"workgroupBarrier", "storageBarrier", "textureBarrier"}


@dataclass(frozen=True)
class Site:
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def of(cls, node) -> "Site":
        meta = getattr(node, "meta", None)
        if meta is not None and not getattr(meta, "empty", True):
            return cls(meta.line, meta.column, meta.end_line, meta.end_column)
        if hasattr(node, "end_column"):  # a lark Token
            return cls(node.line, node.column, node.end_line, node.end_column)
        return cls(1, 1, 1, 1)


@dataclass(frozen=True)
class Loc:
    """A memory location at module scope: a variable and a path of struct members.

    Array indices are dropped (`flags[i].ready` is `flags.ready`), so two locations
    overlap when one path is a prefix of the other.
    """

    root: str
    path: tuple[str, ...]
    space: str  # storage, workgroup, uniform, private, handle
    access: str  # read, read_write

    def member(self, name: str) -> "Loc":
        return Loc(self.root, self.path + (name,), self.space, self.access)

    def overlaps(self, other: "Loc") -> bool:
        n = min(len(self.path), len(other.path))
        return self.root == other.root and self.path[:n] == other.path[:n]

    @property
    def writable_storage(self) -> bool:
        return self.space == "storage" and self.access == "read_write"

    def __str__(self) -> str:
        return ".".join((self.root,) + self.path)


@dataclass(frozen=True, eq=False)
class Source:
    """Where part of a value comes from.

    kind "builtin": a built-in input (name is the builtin).
    kind "load": a read of memory at `loc` (atomic or not; `rmw` names the atomic
        read-modify-write whose returned value this is).
    kind "var": a function-scope or private variable (name is its key); used to find
        loop counters. The values stored in the variable are tracked separately.
    """

    kind: str
    name: str
    loc: Loc | None = None
    atomic: bool = False
    rmw: str | None = None
    site: Site | None = None
    context: tuple = ()
    # True when it reaches the value only through a condition the value was stored under
    # (`if (c) { v = 1u; }`): it still decides uniformity, but is not part of the data.
    indirect: bool = False
    # True when it reaches the value through workgroupUniformLoad: the value is then
    # uniform across the workgroup, whatever it was computed from.
    uniform: bool = False
    # True when it reaches the value through workgroup memory (what was stored there):
    # a variable seen that way is not read directly, so it is nobody's loop counter.
    memory: bool = False
    # True when it reaches the value only as the larger side of a comparison
    # (`atomicLoad(&n) >= N`): of a counter that only grows, a partial value read that way
    # can make the test late, never wrong.
    bound: bool = False

    def __eq__(self, other) -> bool:  # sources fill large sets: compare cheaply
        if self is other:
            return True
        if other.__class__ is not Source or hash(self) != hash(other):
            return False
        return (self.kind, self.name, self.loc, self.atomic, self.rmw, self.site, self.context,
                self.indirect, self.uniform, self.memory, self.bound) == (
                    other.kind, other.name, other.loc, other.atomic, other.rmw, other.site,
                    other.context, other.indirect, other.uniform, other.memory, other.bound)

    def __hash__(self) -> int:  # sources fill large sets: hash each once
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.kind, self.name, self.loc, self.atomic, self.rmw, self.site,
                      self.context, self.indirect, self.uniform, self.memory, self.bound))
            object.__setattr__(self, "_hash", h)
        return h

    def direct(self) -> "Source":
        """The source itself, however it reached the value (not through control, memory, a
        uniform load or a lower-bound test)."""
        if not (self.indirect or self.uniform or self.memory or self.bound):
            return self
        cached = self.__dict__.get("_direct")
        if cached is None:
            cached = replace(self, indirect=False, uniform=False, memory=False, bound=False)
            object.__setattr__(self, "_direct", cached)
        return cached

    def through_control(self) -> "Source":
        if self.indirect:
            return self
        cached = self.__dict__.get("_indirect")
        if cached is None:
            cached = replace(self, indirect=True)
            object.__setattr__(self, "_indirect", cached)
        return cached

    def through_memory(self) -> "Source":
        if self.memory:
            return self
        cached = self.__dict__.get("_memory")
        if cached is None:
            cached = replace(self, memory=True)
            object.__setattr__(self, "_memory", cached)
        return cached

    def as_lower_bound(self) -> "Source":
        if self.bound:
            return self
        cached = self.__dict__.get("_bound")
        if cached is None:
            cached = replace(self, bound=True)
            object.__setattr__(self, "_bound", cached)
        return cached

    def made_uniform(self) -> "Source":
        if self.uniform:
            return self
        cached = self.__dict__.get("_uniform")
        if cached is None:
            cached = replace(self, uniform=True)
            object.__setattr__(self, "_uniform", cached)
        return cached

    @property
    def awaitable(self) -> bool:
        """A read another invocation can change while this one loops: read_write storage,
        or an atomic in workgroup memory."""
        return self.kind == "load" and self.loc is not None and (
            self.loc.writable_storage or (self.atomic and self.loc.space == "workgroup"))

    @property
    def nonuniform(self) -> bool:
        if self.uniform:
            return False
        if self.kind == "builtin":
            return self.name in NONUNIFORM_BUILTINS or self.name.endswith("()")  # subgroup ops
        if self.kind == "load" and self.loc is not None:
            return self.loc.space == "workgroup" or self.loc.writable_storage
        return False

    def describe(self) -> str:
        if self.kind == "builtin":
            return f"`{self.name}`"
        if self.kind == "load":
            how = self.rmw or ("atomicLoad" if self.atomic else "a read")
            return f"`{self.loc}` ({how} at line {self.site.line})"
        return f"`{self.name}`"


EMPTY: frozenset = frozenset()


@dataclass(frozen=True)
class Ref:
    """What a reference or pointer points at: a module-scope location or a local variable."""

    loc: Loc | None = None
    local_key: str | None = None
    index_deps: frozenset = EMPTY
    index_texts: tuple[str, ...] = ()
    const_index: tuple = ()  # each index's value when it is a constant expression, else None
    index_dep_list: tuple = ()  # what each index depends on
    index_shapes: tuple = ()  # each index as an `indices.Shape`: its symbols and bounds

    def own_workgroup_index(self, other: "Ref") -> bool:
        """Whether both references stay in this workgroup's own region of the buffer,
        which no other workgroup touches: the same expression built from `workgroup_id` at
        some position (`hist[wid.x][bin]` and `hist[wid.x][lid.x]`), or flat indices that
        one workgroup_id term spreads apart (`hist[wid.x * 256u + (key & 255u)]` and
        `hist[wid.x * 256u + lid.x]`)."""
        shapes_a = self.index_shapes or (None,) * len(self.index_texts)
        shapes_b = other.index_shapes or (None,) * len(other.index_texts)
        for text_a, text_b, deps, a, b in zip(self.index_texts, other.index_texts, self.index_dep_list,
                                               shapes_a, shapes_b):
            if a is not None and b is not None and a.known and b.known:
                if indices.apart_between_workgroups(a, b):
                    return True
            elif text_a == text_b and any(s.kind == "builtin" and s.name == "workgroup_id"
                                          and not s.indirect for s in deps):
                return True  # arithmetic not followed: trust one expression of workgroup_id
        return False

    def same_place(self, other: "Ref") -> bool:
        """Whether two references may reach the same word: overlapping variables, and no
        index where both are constants that differ (`bump[0]` is not `bump[1]`) or ranges
        of one buffer that never meet (`buf[ARGS + 0u]` and `buf[COUNTERS + (i % 16u)]`)."""
        if self.loc is None or other.loc is None or not self.loc.overlaps(other.loc):
            return False
        if not all(a is None or b is None or a == b
                   for a, b in zip(self.const_index, other.const_index)):
            return False
        return not any(indices.apart(a, b) for a, b in zip(self.index_shapes, other.index_shapes))


@dataclass
class Val:
    deps: frozenset = EMPTY
    ref: Ref | None = None
    is_pointer: bool = False
    fields: dict | None = None  # struct of built-in inputs: member -> Val
    shape: object = None  # for a `let`: its value as an `indices.Shape`, when followed
    # (reads, constant): each bit set in the value was set in one of the reads when read, or
    # is one of the constant's (`atomicLoad(&f) & MASK`, through lets, variables and
    # workgroup memory); None: not known
    bits: tuple | None = None


@dataclass
class Access:
    kind: str  # read, write, rmw
    atomic: bool
    op: str | None
    loc: Loc
    ref: Ref
    site: Site
    seq: int
    guards: frozenset  # atomic-load Sources whose value decides whether this runs
    loops: tuple  # keys of the loops (innermost last) this access is inside
    result_used: bool = True
    source: Source | None = None  # the Source of the value it reads, for reads
    operand_deps: frozenset = EMPTY  # what the stored or combined operands depend on
    operand_const: int | None = None  # the operand of an atomic RMW when it is a constant
    mask: int | None = None  # for an atomicLoad: the constant its value is ANDed with at once
    operand_bits: tuple | None = None  # an atomic RMW's operand's `Val.bits`
    # for an atomicOr of bits just read from the same word, which only atomicOr changes, and
    # of constant bits: the bits it can newly set (a failure passed on sets none); None: any
    sets_bits: int | None = None
    # the call sites ((line, column), outermost first) on the way from the entry point to it
    context: tuple = ()

    @property
    def unchanged(self) -> bool:
        """Whether the write leaves the word as it was."""
        return self.sets_bits == 0


@dataclass
class Frame:
    """One function on the way to an event: the control it is under at `site`, which is
    the call into the next function (or, in the last function, the event itself)."""

    site: Site | None
    function: str
    control: frozenset


@dataclass
class Barrier:
    name: str
    site: Site
    seq: int
    frames: list[Frame]  # from the entry point down to the function with the barrier
    counted: bool = False  # at the top level of the entry point: every invocation passes it


@dataclass
class LoopReport:
    """A loop whose way out waits for storage it does not write itself."""

    key: tuple
    site: Site
    waited: list[Source]  # storage reads in its exit conditions
    seq_start: int
    seq_end: int


@dataclass
class EntryAnalysis:
    entry: str
    stage: str | None = "compute"  # the entry point's stage (None: a function nobody calls)
    accesses: list[Access] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    spin_loops: list[LoopReport] = field(default_factory=list)
    # loops that walk back over other workgroups' states as far as the dispatch reaches
    # (`depth.LookbackWalk`): their loop iterations grow with the dispatch
    lookback_walks: list = field(default_factory=list)
    # `phases.PhaseMap` of the module: places that branches on one dispatch-uniform
    # selector (`params.phase == 1u` against `== 3u`) keep out of the same dispatch
    phases: object = None
    # exchange and compare-exchange results -> the constants `==` / `!=` compare them with
    compared: dict = field(default_factory=dict)
    load_refs: dict = field(default_factory=dict)  # Source of a read -> the Ref it read
    # an entry point written for a one-invocation dispatch: workgroup size 1 and no memory
    # address depends on an invocation or workgroup id
    single_invocation: bool = False
    # atomic loads whose value is only ever compared as a lower bound (`atomicLoad(&n) >= CAP`,
    # through variables and calls): a partial value of a growing counter makes such a test
    # late, never wrong
    lower_bound_reads: set = field(default_factory=set)
    # ...and among them those tested only by the exits of bounded loops (a rendezvous that
    # polls a count a bounded number of times): best-effort reads
    best_effort_reads: set = field(default_factory=set)
