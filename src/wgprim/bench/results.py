"""Reading `wgprim bench --json` files of either schema, and the per-call tables.

Schema 3 rows hold `refs` as {name: {"ms": GPU median, "call_ms": ..., "latency_ms": ...}};
schema 2 rows (every file written before the per-call columns) as {name: GPU median}.
Every reader of bench JSON goes through `refs_of` / `ref_ms` and reads both.
"""
from __future__ import annotations

CALL_REFS = ("torch", "cupy")  # the references timed per call, in the tables' order
LABELS = {"torch": "torch", "cupy": "CuPy"}
SHORT_DTYPES = {"float32": "f32", "int32": "i32", "uint32": "u32", "float16": "f16", "bool": "bool"}


def ref_entry(value) -> dict:
    """One `refs[name]` as {"ms", "call_ms", "latency_ms"}, whichever schema wrote it."""
    if isinstance(value, dict):
        return {"ms": value.get("ms"), "call_ms": value.get("call_ms"), "latency_ms": value.get("latency_ms")}
    return {"ms": value, "call_ms": None, "latency_ms": None}


def refs_of(row: dict) -> dict[str, dict]:
    """A JSON row's references: {name: {"ms", "call_ms", "latency_ms"}}."""
    return {name: ref_entry(value) for name, value in (row.get("refs") or {}).items()}


def ref_ms(row: dict) -> dict:
    """A JSON row's references' GPU medians: {name: ms} (what schema 2 held)."""
    return {name: entry["ms"] for name, entry in refs_of(row).items()}


def size_text(n: int) -> str:
    """2^20 for powers of two, 1,000,000 otherwise."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else f"{n:,}"


def ms_text(ms) -> str:
    if ms is None:
        return "-"
    return f"{ms:.4f}" if ms < 10 else f"{ms:.3f}" if ms < 100 else f"{ms:.1f}"


def per_call_rows(data: dict) -> list[dict]:
    """The rows of a run that carry a per-call figure (old files: none), flattened:
    primitive, dtype, n, wgprim_ms, call_ms, latency_ms, call_over_gpu, refs, absent."""
    out = []
    for row in data.get("rows", []):
        refs = refs_of(row)
        if row.get("call_ms") is None and not any(r["call_ms"] or r["latency_ms"] for r in refs.values()):
            continue
        gpu, call = row.get("wgprim_ms"), row.get("call_ms")
        out.append({"primitive": row["primitive"], "dtype": row["dtype"], "n": row["n"], "wgprim_ms": gpu,
                    "call_ms": call, "latency_ms": row.get("latency_ms"),
                    "call_over_gpu": call / gpu if call and gpu else None, "refs": refs,
                    "absent": row.get("absent") or {}})
    return out


def best_ref_call(row: dict, names=CALL_REFS) -> tuple[str, float] | None:
    """(reference, its call_ms / wgprim's call_ms) of the reference with the lowest call
    time: above 1, wgprim's one-shot call is faster."""
    times = [(row["refs"][k]["call_ms"], k) for k in names if k in row["refs"] and row["refs"][k]["call_ms"]]
    if not times or not row.get("call_ms"):
        return None
    ms, name = min(times)
    return name, ms / row["call_ms"]


def text_table(rows: list[dict], names=CALL_REFS) -> list[str]:
    """The per-call table of `wgprim bench`'s text output, from JSON rows
    (`harness.as_dict`): wgprim's and each reference's call and latency ms, the
    references' call time over wgprim's, and wgprim's call time over its GPU time."""
    flat = per_call_rows({"rows": rows})
    if not flat:
        return []
    head = f"{'primitive':<19} {'dtype':<8} {'n':>11} {'wgprim call':>11} {'latency':>9}"
    for k in names:
        head += f" {k + ' call':>11} {'latency':>9}"
    head += " " + " ".join(f"{'x ' + k:>8}" for k in names) + f" {'call/GPU':>9}"
    lines = [head, "-" * len(head)]
    for r in flat:
        line = f"{r['primitive']:<19} {r['dtype']:<8} {r['n']:>11,} "
        line += f"{ms_text(r['call_ms']):>11} {ms_text(r['latency_ms']):>9}"
        for k in names:
            entry = r["refs"].get(k, {})
            line += f" {ms_text(entry.get('call_ms')):>11} {ms_text(entry.get('latency_ms')):>9}"
        for k in names:
            ref = r["refs"].get(k, {}).get("call_ms")
            line += f" {ref / r['call_ms']:>8.2f}" if ref and r["call_ms"] else f" {'-':>8}"
        line += f" {r['call_over_gpu']:>9.1f}" if r["call_over_gpu"] else f" {'-':>9}"
        lines.append(line)
    return lines


def markdown_table(data: dict, names=CALL_REFS) -> str:
    """The per-call table of benchmarks/h200.md, from one `wgprim bench --json` run, with
    a line naming the run and notes for the figures a side could not give."""
    flat = per_call_rows(data)
    cols = ["primitive", "n", "wgprim call ms", "wgprim latency ms"]
    for k in names:
        cols += [f"{LABELS.get(k, k)} call ms", f"{LABELS.get(k, k)} latency ms"]
    cols += ["wgprim GPU ms", "call / GPU", "call vs best ref"]
    lines = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 2) + "---|"]
    notes = []
    for r in flat:
        cells = [f"{r['primitive']} {SHORT_DTYPES.get(r['dtype'], r['dtype'])}", size_text(r["n"]),
                 ms_text(r["call_ms"]), ms_text(r["latency_ms"])]
        for k in names:
            entry = r["refs"].get(k, {})
            cells += [ms_text(entry.get("call_ms")), ms_text(entry.get("latency_ms"))]
        best = best_ref_call(r, names)
        cells += [ms_text(r["wgprim_ms"]), f"{r['call_over_gpu']:.1f}x" if r["call_over_gpu"] else "-",
                  f"{best[1]:.2f}x {LABELS.get(best[0], best[0])}" if best else "-"]
        lines.append("| " + " | ".join(cells) + " |")
        for side, why in r["absent"].items():
            note = f"{side}: {why}"
            if note not in (n for _, n in notes):
                notes.append((r["primitive"], note))
    head = (f"From `{data['source']}`: " if data.get("source") else "") + \
        f"{data.get('date', '?')}, {data.get('adapter', '?')}, wgprim {data.get('wgprim', '?')}."
    out = [head, "", *lines]
    if notes:
        out += ["", "Not measured (`-`): " + "; ".join(f"{prim}: {note}" for prim, note in notes) + "."]
    out += ["", "call: wall time per call of N one-shot calls back to back, then one sync; latency: one call, "
                "then its first element on the host (docs/bench.md). call vs best ref: the fastest reference's "
                "call time over wgprim's (above 1: wgprim's call is faster)."]
    return "\n".join(out) + "\n"
