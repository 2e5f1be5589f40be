"""Module-scope declarations: variables and their address spaces, structs, functions."""
from __future__ import annotations

from dataclasses import dataclass, field

from lark import Token, Tree

from .model import Loc


def ident_name(node) -> str | None:
    """The name of a plain identifier expression, else None."""
    if isinstance(node, Tree) and node.data == "ident_expr":
        return str(node.children[0])
    return None


def attributes(attrs: Tree | None) -> dict[str, list]:
    """`@name(args)` attributes as name -> list of argument nodes."""
    out: dict[str, list] = {}
    if attrs is None:
        return out
    for attr in attrs.children:
        if attr.data != "attribute":
            continue
        name, args = attr.children
        items = []
        if args is not None and args.children:
            items = list(args.children[0].children)
        out[str(name)] = items
    return out


@dataclass
class FunctionInfo:
    name: str
    node: Tree
    params: list[tuple[str, Tree | None, str | None]]  # (name, type node, builtin)
    is_compute: bool
    stage: str | None = None  # compute, fragment or vertex for an entry point


@dataclass
class ModuleInfo:
    globals: dict[str, Loc] = field(default_factory=dict)
    constants: set[str] = field(default_factory=set)
    const_values: dict[str, Tree] = field(default_factory=dict)  # const name -> initializer
    structs: dict[str, dict[str, str | None]] = field(default_factory=dict)  # member -> builtin
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    # variables whose every scalar is a u32 (`array<atomic<u32>>`): what they hold is >= 0
    unsigned_vars: set[str] = field(default_factory=set)

    @property
    def roots(self) -> list[str]:
        """Compute entry points, and fragment entry points beside them (a spin lock per
        pixel waits like one per workgroup); in a module without a compute entry point,
        every function nobody calls."""
        entries = [f.name for f in self.functions.values() if f.is_compute]
        if entries:
            return entries + [f.name for f in self.functions.values() if f.stage == "fragment"]
        called = set()
        for f in self.functions.values():
            for node in f.node.iter_subtrees():
                if node.data in ("call_expr", "call_stmt"):
                    called.add(str(node.children[0]))
        return [name for name in self.functions if name not in called]


def _global_var(node: Tree) -> tuple[str, Loc]:
    _attrs, template, typed, _init = node.children
    name = str(typed.children[0])
    args = [ident_name(a) for a in template.children[0].children] if template is not None else []
    space = args[0] if args else "private"
    if space == "storage":
        access = args[1] if len(args) > 1 else "read"
    elif space == "uniform":
        access = "read"
    else:
        access = "read_write"
    if template is None and typed.children[1] is not None:
        type_name = str(typed.children[1].children[0])
        if type_name.startswith(("texture", "sampler")):
            space = "handle"
    return name, Loc(name, (), space or "private", access or "read")


def _builtin_of(attrs: Tree | None) -> str | None:
    args = attributes(attrs).get("builtin")
    return ident_name(args[0]) if args else None


def collect(tree: Tree) -> ModuleInfo:
    info = ModuleInfo()
    for node in tree.children:
        if not isinstance(node, Tree):
            continue
        if node.data == "global_var":
            name, loc = _global_var(node)
            info.globals[name] = loc
            if is_unsigned_type(node.children[2].children[1]):
                info.unsigned_vars.add(name)
        elif node.data in ("const_decl", "override_decl"):
            typed = node.children[0] if node.data == "const_decl" else node.children[1]
            info.constants.add(str(typed.children[0]))
            if node.data == "const_decl":
                info.const_values[str(typed.children[0])] = node.children[1]
        elif node.data == "struct_decl":
            members = {}
            for member in node.children[1:]:
                attrs, name, _type = member.children
                members[str(name)] = _builtin_of(attrs)
            info.structs[str(node.children[0])] = members
        elif node.data == "function_decl":
            attrs, name, params, _ret, _body = node.children
            plist = []
            if params is not None:
                for p in params.children:
                    pattrs, pname, ptype = p.children
                    plist.append((str(pname), ptype, _builtin_of(pattrs)))
            stages = [a for a in ("compute", "fragment", "vertex") if a in attributes(attrs)]
            info.functions[str(name)] = FunctionInfo(
                str(name), node, plist, "compute" in stages, stages[0] if stages else None)
    return info


def type_name(type_node: Tree | None) -> str | None:
    if type_node is None:
        return None
    first = type_node.children[0]
    return str(first) if isinstance(first, Token) else None


_UNSIGNED_TYPE_WORDS = {"u32", "array", "atomic", "vec2", "vec3", "vec4", "vec2u", "vec3u", "vec4u"}


def is_unsigned_type(type_node) -> bool:
    """Whether a declared type holds only u32 scalars (`u32`, `array<atomic<u32>, 4>`)."""
    if not isinstance(type_node, Tree):
        return False
    words = {str(t) for t in type_node.scan_values(lambda v: isinstance(v, Token) and v.type != "INT")}
    return words <= _UNSIGNED_TYPE_WORDS and bool(words & {"u32", "vec2u", "vec3u", "vec4u"})
