"""The "Per call" table of benchmarks/h200.md, in markdown, from a `wgprim bench --json`
run that measured per call (e.g. `wgprim bench --calls-grid`, benchmarks/run_h200.sh's
h200-YYYY-MM-DD-calls.json):

    python3 benchmarks/per_call_table.py benchmarks/h200-YYYY-MM-DD-calls.json [--refs torch,cupy] [> table.md]

One line per row that carries per-call figures: wgprim's call and latency ms, each
reference's, wgprim's GPU ms, its call time over its GPU time, and the fastest
reference's call time over wgprim's. Rows of files written before the per-call columns
(schema 2) carry none and are left out. wgprim must be importable (PYTHONPATH=src).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from wgprim.bench.results import CALL_REFS, markdown_table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="a wgprim bench --json file")
    parser.add_argument("--refs", default=",".join(CALL_REFS), help="references, in the table's order")
    args = parser.parse_args(argv)
    path = Path(args.json)
    data = json.loads(path.read_text())
    data.setdefault("source", path.name)
    sys.stdout.write(markdown_table(data, [r.strip() for r in args.refs.split(",") if r.strip()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
