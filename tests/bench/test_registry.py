"""The registry of primitives: the README's table names what it holds, its references
are right (they check functions still being written), and one entry is all the demo
and the bench need."""
import re
from pathlib import Path

import numpy as np
import pytest

import wgprim
from wgprim import registry
from wgprim.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
SHORT = {"u32": "uint32", "i32": "int32", "f32": "float32", "f16": "float16", "bool": "bool",
         "u64": "uint64", "i64": "int64", "f64": "float64"}
NOT_PRIMITIVES = {"Array", "asarray", "empty", "use_device", "Array.from_buffer"}


def readme_table() -> dict[str, set]:
    """README function name -> the dtypes its table row names ('any' row: every dtype)."""
    text = README.read_text()
    table = text[text.index("| primitive | dtypes | notes |"):].split("\n\n")[0]
    names: dict[str, set] = {}
    allowed: set = set()
    for line in table.splitlines()[2:]:
        first, dtypes = line.split("|")[1:3]
        words = set(re.findall(r"\b(u32|i32|f32|f16|bool|u64|i64|f64|any)\b", dtypes))
        if "as above" not in dtypes:
            allowed = set(SHORT.values()) if "any" in words else {SHORT[w] for w in words}
        for code in re.findall(r"`([^`]*)`", first):
            for name in re.split(r"[,/]", code.split("(")[0]):
                names.setdefault(name.strip(), set()).update(allowed)
    return names


def test_readme_table_and_registry_name_the_same_primitives():
    table = readme_table()
    documented = set(table) - NOT_PRIMITIVES
    present = {p.function for p in registry.ENTRIES if p.missing() is None}
    assert documented <= {p.function for p in registry.ENTRIES}, "a documented primitive without an entry"
    assert present <= documented, "a primitive in the registry but not in the README's table"
    for p in registry.ENTRIES:
        if p.missing() is None:
            assert set(p.dtypes) <= table[p.function], f"{p.name}: dtypes beyond the README's row"


def test_targets_name_entries_and_their_dtypes():
    for name, dtype, n in registry.TARGETS:
        assert dtype in registry.BY_NAME[name].dtypes and n >= 2**20
    assert registry.TARGETS[0][0] == "sum"  # the protocol check repeats the first row


def test_missing_says_which_function_or_keyword():
    class Module:
        @staticmethod
        def sum(x):
            return x

    assert registry.BY_NAME["topk"].missing(Module) == "wgprim.topk does not exist"
    assert registry.BY_NAME["sum_axis0"].missing(Module) == "wgprim.sum has no axis= argument"
    assert registry.BY_NAME["sum"].missing(Module) is None
    assert registry.BY_NAME["sum"].missing() is None


@pytest.mark.parametrize("p", registry.ENTRIES, ids=lambda p: p.name)
def test_every_reference_accepts_its_own_answer(p, rng):
    # Entries for functions not written yet must still have working inputs and references.
    for dtype in p.dtypes:
        inputs = p.make(rng, 4096, np.dtype(dtype))
        assert inputs[0].size >= 64 and inputs[0].dtype == np.dtype(dtype)
        expected = p.numpy(*inputs)
        same = p.same or registry.exact
        assert same(expected, expected, *inputs)


def test_topk_reference_takes_the_largest_lower_index_first(rng):
    x = rng.integers(0, 20, (7, 300)).astype(np.float32)  # many ties
    values, indices = registry.topk_ref(16)(x)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :16]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, axis=-1))


def test_segmented_references_match_a_loop_over_segments(rng):
    keys = registry.values(rng, 5000, np.uint32)
    offsets = registry.segment_offsets(rng, keys.size, mean=16)
    assert offsets[0] == 0 and offsets[-1] == keys.size and np.all(np.diff(offsets.astype(np.int64)) >= 0)
    assert np.any(np.diff(offsets) == 0)  # empty segments occur
    pieces = [keys[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    np.testing.assert_array_equal(registry.segment_sort_ref(keys, offsets), np.concatenate([np.sort(s) for s in pieces]))
    np.testing.assert_array_equal(registry.segment_sum_ref(keys, offsets),
                                  np.array([s.sum(dtype=np.uint32) for s in pieces], np.uint32))
    np.testing.assert_array_equal(registry.segment_cumsum_ref(keys, offsets),
                                  np.concatenate([np.cumsum(s, dtype=np.uint32) for s in pieces]))
    x = registry.values(rng, 5000, np.float32)
    sums = np.array([x[a:b].astype(np.float64).sum() for a, b in zip(offsets[:-1], offsets[1:])])
    assert registry.close_segment_sum(sums.astype(np.float32), registry.segment_sum_ref(x, offsets), x, offsets)


def test_one_entry_puts_a_primitive_in_the_demo_and_the_bench(monkeypatch, tmp_path, capsys):
    entry = registry.Primitive("negated_max", ("min",), ("int32",), registry.one,
                               lambda wp, x: wp.min(wp.asarray(-x.numpy())), lambda x: (-x).min())
    monkeypatch.setattr(registry, "ENTRIES", registry.ENTRIES + [entry])
    assert main(["demo", "-n", "1000", "--only", "negated_max"]) == 0
    assert "negated_max" in capsys.readouterr().out
    out = tmp_path / "b.json"
    assert main(["bench", "negated_max", "--sizes", "2^10", "--repeat", "1", "--compare", "numpy", "--calls", "10",
                 "--warmup-ms", "1", "--round-ms", "1", "--json", str(out)]) == 0
    assert out.read_text().count('"primitive": "negated_max"') == 1


def test_an_entry_whose_function_is_missing_is_skipped_not_failed(monkeypatch, capsys):
    entry = registry.Primitive("not_yet", ("not_yet_written",), ("float32",), registry.one,
                               lambda wp, x: wp.not_yet_written(x), lambda x: x)
    monkeypatch.setattr(registry, "ENTRIES", registry.ENTRIES + [entry])
    assert main(["demo", "-n", "1000", "--only", "not_yet"]) == 0
    out = capsys.readouterr().out
    assert "not_yet (wgprim.not_yet_written does not exist)" in out and "ERROR" not in out
    assert not hasattr(wgprim, "not_yet_written")


def test_docs_bench_lists_every_entry_where_it_runs():
    """docs/bench.md names each registry entry, in the list of those a plain `wgprim bench`
    measures or in the list of those measured only when named."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "bench.md").read_text()
    default = re.search(r"Measured when none is named:\s*`([^`]*)`", text).group(1).split()
    named = re.search(r"Measured only when named[^`]*`([^`]*)`", text).group(1).split()
    assert default == [e.name for e in registry.ENTRIES if e.bench]
    assert named == [e.name for e in registry.ENTRIES if not e.bench]
