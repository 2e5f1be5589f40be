"""Do two `wgprim bench --json` runs agree? Row by row (same primitive, dtype and n),
the ratio of the second run's median GPU time to the first's, for wgprim and each
reference; exit status 1 when wgprim's time (and the references', with --references)
in a row at or above --min-n differs by more than --tolerance. Reads files of either
schema (`refs` as {name: ms} or {name: {"ms", "call_ms", "latency_ms"}}).

    python -m wgprim.bench.agree first.json second.json [--min-n 2^28] [--tolerance 0.05]
"""
from __future__ import annotations

import argparse
import json
import sys

from wgprim.bench.results import ref_ms


def _key(row: dict) -> tuple:
    return row["primitive"], row["dtype"], row["n"]


def compare(first: dict, second: dict, min_n: int = 1, tolerance: float = 0.05) -> list[dict]:
    """One entry per row present in both runs (at or above min_n), per side measured."""
    later = {_key(r): r for r in second["rows"]}
    out = []
    for row in first["rows"]:
        other = later.get(_key(row))
        if other is None or row["n"] < min_n:
            continue
        sides = {"wgprim": (row.get("wgprim_ms"), other.get("wgprim_ms"))}
        theirs = ref_ms(other)
        sides.update({ref: (ms, theirs.get(ref)) for ref, ms in ref_ms(row).items()})
        for side, (a, b) in sides.items():
            if a and b:
                ratio = b / a
                out.append({"primitive": row["primitive"], "dtype": row["dtype"], "n": row["n"], "side": side,
                            "first_ms": a, "second_ms": b, "ratio": ratio, "agree": abs(ratio - 1) <= tolerance})
    return out


def main(argv: list[str] | None = None) -> int:
    from wgprim.bench.cli import parse_size

    parser = argparse.ArgumentParser(prog="python -m wgprim.bench.agree", description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--min-n", type=parse_size, default=1, help="only rows of at least this many elements")
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--references", action="store_true", help="the references must agree too")
    args = parser.parse_args(argv)
    with open(args.first) as f, open(args.second) as g:
        results = compare(json.load(f), json.load(g), args.min_n, args.tolerance)
    for r in results:
        print(f"{r['primitive']:<19} {r['dtype']:<8} {r['n']:>11,} {r['side']:<7} {r['first_ms']:>10.4f} "
              f"{r['second_ms']:>10.4f} {r['ratio']:>7.3f}  {'agree' if r['agree'] else 'DIFFER'}")
    judged = [r for r in results if args.references or r["side"] == "wgprim"]
    differ = [r for r in judged if not r["agree"]]
    print(f"{len(judged) - len(differ)} of {len(judged)} agree within {100 * args.tolerance:.0f}%"
          + ("" if args.references else " (wgprim; references listed for information)"))
    return 1 if differ or not judged else 0


if __name__ == "__main__":
    sys.exit(main())
