"""What makes `wgprim check` start fast must not change what it says: the check subcommand
loads neither numpy nor wgpu, `import wgprim` still offers every public name, the cached
parser tables are optional, and our parse loop gives the trees and positions of lark's
own `propagate_positions=True` parser."""
from __future__ import annotations

import subprocess
import sys
from importlib import resources
from pathlib import Path

import lark
import pytest

import wgprim
from wgprim.check import parser
from wgprim.check.errors import WgslSyntaxError

from support import child_env, child_pythonpath

SRC = Path(wgprim.__file__).parents[1]
KERNELS = sorted((SRC / "wgprim" / "kernels").rglob("*.wgsl"))
CORPUS = sorted((Path(__file__).parent / "corpus").rglob("*.wgsl"))


def _python(code: str, **env) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": child_pythonpath(), **env})
    return out.stdout.strip()


def test_check_subcommand_imports_neither_numpy_nor_wgpu():
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['wgprim', 'check', {str(KERNELS[0])!r}]\n"
        "try:\n"
        "    runpy.run_module('wgprim', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as e:\n"
        "    print(e.code, sorted(m for m in ('numpy', 'wgpu') if m in sys.modules))\n"
    )
    assert _python(code) == "0 []"


def test_import_wgprim_still_offers_every_public_name():
    code = (
        "import wgprim\n"
        "names = [n for n in wgprim.__all__ if not hasattr(wgprim, n)]\n"
        "ns = {}\n"
        "exec('from wgprim import *', ns)\n"
        "print(names, sorted(set(wgprim.__all__) - set(ns)), callable(wgprim.sum),\n"
        "      hasattr(wgprim, 'ops') and hasattr(wgprim.ops, 'operators'), set(wgprim.__all__) <= set(dir(wgprim)))\n"
    )
    assert _python(code) == "[] [] True True True"
    with pytest.raises(AttributeError):
        wgprim.no_such_name  # noqa: B018


def _signature(node):
    """Everything the analysis can read from a tree: shapes, texts, types and positions."""
    fields = ("line", "column", "end_line", "end_column", "start_pos", "end_pos")
    if isinstance(node, lark.Tree):
        meta = node.meta
        where = () if meta.empty else tuple(getattr(meta, f) for f in fields)
        return (node.data, meta.empty, where, tuple(_signature(c) for c in node.children))
    if isinstance(node, lark.Token):
        return (node.type, str(node), tuple(getattr(node, f) for f in fields))
    return repr(node)


@pytest.fixture(scope="module")
def lark_parser():
    grammar = resources.files("wgprim.check").joinpath("wgsl.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", lexer=parser._TokenList, propagate_positions=True,
                     maybe_placeholders=True)


@pytest.mark.parametrize("path", KERNELS + CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parse_gives_the_trees_and_positions_of_lark(path, lark_parser):
    text = path.read_text(encoding="utf-8")
    from wgprim.check.lexer import lex

    tokens = parser._to_lark_tokens(lex(text)[0])
    try:
        want = _signature(lark_parser.parse(list(tokens)))
    except lark.exceptions.UnexpectedInput:
        with pytest.raises(WgslSyntaxError):
            parser.parse(text, str(path))
        return
    assert _signature(parser.parse(text, str(path)).tree) == want


def test_tokens_compare_as_lark_tokens_do_in_a_tree():
    tree = parser.parse("fn f() { let x = a + a; }").tree
    idents = [t for t in tree.scan_values(lambda v: isinstance(v, lark.Token)) if t.type == "IDENT"]
    assert idents.count("a") == 2 and idents[0] != "b"
    a = [t for t in idents if t == "a"]
    assert a[0] == a[1] and hash(a[0]) == hash("a") and a[0] == lark.Token("IDENT", "a")


def test_parser_cache_is_written_once_and_optional(tmp_path, monkeypatch):
    texts = [path.read_text(encoding="utf-8") for path in KERNELS[:3]]
    want = [_signature(parser.parse(text).tree) for text in texts]

    def same_trees(lark_parser):
        tables = parser._compile(lark_parser)
        with monkeypatch.context() as m:
            m.setattr(parser, "_tables", lambda: tables)
            return [_signature(parser.parse(text).tree) for text in texts] == want

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert same_trees(parser._load_or_build())  # built, then written
    cached = list((tmp_path / "wgprim").glob("*.pickle"))
    assert len(cached) == 1 and not list((tmp_path / "wgprim").glob("*.tmp"))
    written = cached[0].stat().st_mtime_ns
    assert same_trees(parser._load_or_build())  # read back, not rewritten
    assert cached[0].stat().st_mtime_ns == written

    cached[0].write_bytes(b"not a pickle")  # corrupt: rebuilt and rewritten
    assert same_trees(parser._load_or_build())
    assert cached[0].read_bytes() != b"not a pickle"

    blocked = tmp_path / "file"
    blocked.write_text("")  # a cache "directory" that is a file: nothing can be written
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert same_trees(parser._load_or_build())


def test_first_use_from_many_threads_at_once():
    """Threads touching the package's names for the first time together all get them
    (the lazy import is guarded): in a fresh interpreter."""
    import subprocess
    import sys

    code = (
        "import threading, wgprim\n"
        "names = ['sum', 'asarray', 'sort', 'Array', 'cumsum', 'topk', 'histogram', 'batch'] * 4\n"
        "errors = []\n"
        "barrier = threading.Barrier(len(names))\n"
        "def touch(n):\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        getattr(wgprim, n)\n"
        "    except Exception as e:\n"
        "        errors.append(repr(e))\n"
        "ts = [threading.Thread(target=touch, args=(n,)) for n in names]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "assert not errors, errors\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=child_env())
    assert done.returncode == 0, done.stderr


def _modules():
    import pkgutil

    import wgprim
    import wgprim.api
    import wgprim.ops

    names = [f"wgprim.{m.name}" for m in pkgutil.iter_modules(wgprim.__path__) if m.name not in ("__main__", "dask")]
    names += [f"wgprim.ops.{m.name}" for m in pkgutil.iter_modules(wgprim.ops.__path__)]
    names += [f"wgprim.api.{m.name}" for m in pkgutil.iter_modules(wgprim.api.__path__)]
    return sorted(names)


@pytest.mark.parametrize("module", _modules())
def test_any_module_imports_first(module):
    """Each module can be the first one a fresh interpreter imports (the package's names
    load lazily, so an import cycle through them would show only in that order)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", f"import {module}; import wgprim; wgprim.sum"],
                          capture_output=True, text=True, timeout=120, env=child_env())
    assert done.returncode == 0, done.stderr
