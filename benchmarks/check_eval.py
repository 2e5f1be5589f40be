"""Measure `wgprim check` on WGSL written by others.

The sources are not part of this repository (they belong to their authors): fetch the files
named in `check-eval-manifest.json` (repository, path, commit) into a directory, each under
the manifest's `file` name, then run

    PYTHONPATH=src python benchmarks/check_eval.py DIR [--manifest benchmarks/check-eval-manifest.json]

(`--manifest` may be repeated; a `.jsonl` manifest holds one entry a line.)

It prints, per category, how many files are flagged as expected:

- `litmus`, `known-wait` (expect `wait`): a file counts as found when the checker reports a
  `spin-wait` or `global-barrier`; `waits` (when given) is the number of waiting loops in
  the file, compared with the number of such findings;
- `design-clean`, `real-clean` (expect `clean`): a file counts against the checker when it
  has any finding at all;
- `known-bug` (expect `finding`): files with another problem the rules name (a barrier
  under non-uniform control flow), found when the rules reported are exactly the
  manifest's `rules` (no `spin-wait` on a design that never waits, say);
- files that are not WGSL (templates, `#import`, naga extensions) must be refused with a
  one-line error; they are counted apart, as `refused`, never as findings.

Exit status 0; the numbers are the result. `--verbose` lists each file that missed.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

WAIT_RULES = {"spin-wait", "global-barrier"}


def evaluate(root: Path, manifest: list[dict]) -> dict:
    from wgprim.check import WgslSyntaxError, check_source

    rows = []
    for entry in manifest:
        path = root / entry["file"]
        row = dict(entry, status="missing", findings=[])
        if path.is_file():
            start = time.process_time()
            try:
                findings = check_source(path.read_text(encoding="utf-8"), str(path))
                row["status"] = "checked"
                row["findings"] = [f"{f.line}:{f.rule}" for f in findings]
            except WgslSyntaxError as e:
                row["status"] = "refused"
                row["error"] = e.message
            row["seconds"] = time.process_time() - start
        rows.append(row)
    return {"rows": rows}


def summarize(rows: list[dict], verbose: bool = False) -> list[str]:
    by_category: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_category[row["category"]].append(row)
    lines = []
    for category in sorted(by_category):
        group = by_category[category]
        checked = [r for r in group if r["status"] == "checked"]
        refused = [r for r in group if r["status"] == "refused"]
        missing = [r for r in group if r["status"] == "missing"]
        expect = group[0]["expect"]
        if expect == "wait":
            found = [r for r in checked if any(f.split(":", 1)[1] in WAIT_RULES for f in r["findings"])]
            loops = sum(r.get("waits", 1) for r in checked)
            loops_found = sum(min(r.get("waits", 1), sum(f.split(":", 1)[1] in WAIT_RULES
                                                         for f in r["findings"])) for r in checked)
            lines.append(f"{category:14} flagged {len(found)}/{len(checked)} files, "
                         f"waiting loops {loops_found}/{loops}; refused {len(refused)}, missing {len(missing)}")
            missed = [r for r in checked if r not in found]
        elif expect == "finding":
            found = [r for r in checked if r["findings"] and (
                "rules" not in r or {f.split(":", 1)[1] for f in r["findings"]} == set(r["rules"]))]
            lines.append(f"{category:14} flagged {len(found)}/{len(checked)} files; "
                         f"refused {len(refused)}, missing {len(missing)}")
            missed = [r for r in checked if r not in found]
        elif expect == "refused":
            lines.append(f"{category:14} refused with a one-line error {len(refused)}/{len(group) - len(missing)} "
                         f"files; missing {len(missing)}")
            missed = [r for r in checked]
        else:
            noisy = [r for r in checked if r["findings"]]
            lines.append(f"{category:14} with findings {len(noisy)}/{len(checked)} files; "
                         f"refused {len(refused)}, missing {len(missing)}")
            missed = noisy
        if verbose:
            for r in missed:
                lines.append(f"    {r['file']}: {', '.join(r['findings']) or 'no finding'}")
            for r in (refused if expect != "refused" else []):
                lines.append(f"    refused {r['file']}: {r['error']}")
    seconds = sum(r.get("seconds", 0.0) for r in rows)
    lines.append(f"{sum(r['status'] == 'checked' for r in rows)} files checked in {seconds:.1f} s of CPU")
    return lines


def _entries(path: Path) -> list[dict]:
    """The entries of a manifest: a JSON object with "files", or JSON lines."""
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)["files"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory holding the fetched files")
    parser.add_argument("--manifest", type=Path, action="append",
                        help="a manifest: JSON ({\"files\": [...]}) or JSON lines, one entry a "
                             "line; may be given several times (default: check-eval-manifest.json)")
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every file's result here")
    args = parser.parse_args(argv)
    manifest = []
    for path in args.manifest or [Path(__file__).with_name("check-eval-manifest.json")]:
        manifest += _entries(path)
    result = evaluate(args.root, manifest)
    print("\n".join(summarize(result["rows"], args.verbose)))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
