"""The layers of the call path (docs/design.md, "Layers"): the front doors in wgprim.api,
the building blocks they look up in wgprim.ops. Read from the source with `ast`, every
import counted (at module level and inside functions): nothing in ops imports api, and
neither the modules of ops nor those of api import each other in a cycle."""
import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "wgprim"


def module_name(path: Path, root: Path = SRC) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: str) -> dict[str, Path]:
    folder = PACKAGE / package
    return {module_name(p): p for p in sorted(folder.glob("*.py"))}


def imported(path: Path, root: Path = SRC) -> set[str]:
    """Every module `path` imports, anywhere in the file: `import a.b` gives a.b, `from a
    import b` gives a and a.b (b may be a submodule), relative imports resolved."""
    here = module_name(path, root)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports."""
    mods = modules(package)
    return {name: {m for m in imported(path) if m in mods and m != name} for name, path in mods.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (its modules, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_reader_sees_every_kind_of_import(tmp_path):
    pkg = tmp_path / "wgprim" / "ops"
    pkg.mkdir(parents=True)
    src = pkg / "x.py"
    src.write_text("import wgprim.ops.a as A\nfrom wgprim.ops import b\nfrom . import c\nfrom .d import e\n"
                   "def f():\n    from wgprim.api.sort import sort\n")
    found = imported(src, tmp_path)
    assert {"wgprim.ops.a", "wgprim.ops.b", "wgprim.ops.c", "wgprim.ops.d", "wgprim.api.sort"} <= found
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.parametrize("path", list(modules("ops").values()), ids=lambda p: p.name)
def test_building_blocks_never_import_the_front_doors(path):
    doors = sorted(m for m in imported(path) if m == "wgprim.api" or m.startswith("wgprim.api."))
    assert not doors, f"{path.name} imports {doors}: the front doors are the layer above ops"


@pytest.mark.parametrize("package", ["ops", "api"])
def test_no_import_cycle(package):
    edges = graph(package)
    assert len(edges) > 5
    found = cycle(edges)
    assert found is None, f"import cycle in wgprim.{package}: {' -> '.join(found)}"


def test_every_public_function_is_a_front_door():
    """The numpy-shaped names wgprim exports come from wgprim.api."""
    import wgprim

    elsewhere = {"Array", "asarray", "empty", "zeros", "memory_pool", "get_device", "list_adapters", "use_adapter", "use_device",
                 "NoAdapterError", "WgprimError", "Monoid", "batch", "warmup"}
    doors = [n for n in wgprim.__all__ if n not in elsewhere]
    assert len(doors) > 20
    outside = {n: getattr(wgprim, n).__module__ for n in doors
               if not getattr(wgprim, n).__module__.startswith("wgprim.api.")}
    assert not outside


# The core, lowest first: each module imports only modules before it (docs/design.md,
# "Layers"). errors, native, unroll and tuning use no other module of wgprim.
CORE = ["errors", "native", "unroll", "lru", "tuning", "batching", "device", "memory", "transfer", "pipelines", "caches",
        "profiling", "program", "probes", "recordings", "plans", "array"]


def core_graph() -> dict[str, set[str]]:
    """Core module -> the core modules it imports (at module level or inside functions)."""
    paths = {name: PACKAGE / f"{name}.py" for name in CORE}
    full = {f"wgprim.{name}": name for name in CORE}
    return {name: {full[m] for m in imported(path) if m in full and full[m] != name} for name, path in paths.items()}


def test_the_core_has_no_import_cycle():
    found = cycle(core_graph())
    assert found is None, f"import cycle in wgprim's core: {' -> '.join(found)}"


@pytest.mark.parametrize("name", CORE)
def test_each_core_module_imports_only_the_layers_below_it(name):
    above = {m for m in core_graph()[name] if CORE.index(m) > CORE.index(name)}
    assert not above, f"wgprim.{name} imports {sorted(above)}, which come after it in {CORE}"


def test_every_core_module_is_in_the_order():
    top = {p.stem for p in PACKAGE.glob("*.py")}
    core_like = {"array", "batching", "caches", "device", "lru", "memory", "native", "pipelines", "plans", "probes",
                 "profiling", "program", "recordings", "transfer", "tuning"}
    assert core_like <= top and core_like <= set(CORE)
