"""benchmarks/check_eval.py reads its manifests (JSON and JSON lines, several at once) and
counts a category's files as the checker treats them."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "check_eval.py"


def _script():
    spec = importlib.util.spec_from_file_location("check_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_manifests_json_and_json_lines(tmp_path, capsys):
    ev = _script()
    (tmp_path / "clean").mkdir()
    (tmp_path / "wait").mkdir()
    (tmp_path / "clean" / "a.wgsl").write_text("@compute @workgroup_size(1) fn main() {}\n")
    (tmp_path / "wait" / "b.wgsl").write_text(
        "@group(0) @binding(0) var<storage, read_write> f: atomic<u32>;\n"
        "@compute @workgroup_size(64) fn main() {\n"
        "  loop { if (atomicLoad(&f) == 1u) { break; } }\n}\n")
    first = tmp_path / "m.json"
    first.write_text(json.dumps({"files": [
        {"file": "clean/a.wgsl", "category": "real-clean", "expect": "clean"}]}))
    second = tmp_path / "m.jsonl"
    second.write_text(json.dumps({"file": "wait/b.wgsl", "category": "known-wait", "expect": "wait"})
                      + "\n\n" + json.dumps({"file": "clean/gone.wgsl", "category": "real-clean",
                                             "expect": "clean"}) + "\n")
    assert ev.main([str(tmp_path), "--manifest", str(first), "--manifest", str(second)]) == 0
    out = capsys.readouterr().out
    assert "real-clean     with findings 0/1 files; refused 0, missing 1" in out
    assert "known-wait     flagged 1/1 files, waiting loops 1/1" in out
