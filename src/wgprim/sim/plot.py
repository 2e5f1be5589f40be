"""Timeline plot of a traced simulation: one row per slot, one bar per workgroup segment.

matplotlib is optional (`pip install 'wgprim[plot]'`) and imported only here.
"""
from __future__ import annotations

import textwrap

from .engine import KIND_NAMES
from .result import Result

MAX_ROWS = 32          # more slots than this are summarized in the title
MAX_LABELS = 400       # bars get a workgroup id only when there are few of them
MAX_EXACT_BARS = 5000  # beyond this, bars are merged to about the image's resolution
BINS = 1500

STYLE = {  # kind -> bar style
    "compute": dict(facecolor="#4C72B0", edgecolor="white", linewidth=0.5),
    "fallback": dict(facecolor="#DD8452", edgecolor="white", linewidth=0.5),
    "wait": dict(facecolor="#F6D8D9", edgecolor="#C44E52", hatch="////", linewidth=0.6),
    "starved": dict(facecolor="#D9D9D9", edgecolor="#8C8C8C", hatch="..", linewidth=0.6),
}
LABELS = {"compute": "computing", "fallback": "fallback step", "wait": "waiting (spinning)",
          "starved": "starved by the scheduler"}


def plot_timeline(result: Result, path: str, max_rows: int = MAX_ROWS) -> None:
    """Draw `result` (from simulate(..., trace=True)) into an image file at `path`."""
    import matplotlib

    matplotlib.use("Agg")  # files only; never needs a display
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D

    m = result.machine
    rows = min(m.slots, max_rows)
    end = result.end_time
    right = max(end * 1.25, end + 2.0) if result.deadlocked else max(end, 1e-9)

    fig_height = 1.9 + 0.26 * rows + (0.5 if result.deadlocked else 0)
    fig, ax = plt.subplots(figsize=(11, fig_height))

    # Group bars by (row, kind): one broken_barh call each.
    visible = [s for s in result.segments if s[0] < rows]
    if len(visible) > MAX_EXACT_BARS:
        bars = _binned_bars(visible, rows, right)
    else:
        bars = {}
        for slot, _, start, stop, kind in visible:
            bars.setdefault((slot, KIND_NAMES[kind]), []).append((start, stop - start))
    for wait in result.waiting:  # stuck waits run off the right edge: forever
        if wait.slot < rows:
            bars.setdefault((wait.slot, "wait"), []).append((wait.since, right - wait.since))
    used = set()
    for (slot, kind), spans in bars.items():
        ax.broken_barh(spans, (slot - 0.4, 0.8), **STYLE[kind])
        used.add(kind)

    if len(visible) + len(result.waiting) <= MAX_LABELS:
        _label_bars(ax, visible, result, rows, right)

    for d, t in enumerate(result.dispatch_times[1:], 2):
        ax.axvline(t, color="#555555", linestyle="--", linewidth=1)
        ax.text(t, 1.005, f"dispatch {d}", fontsize=8, color="#555555", ha="center",
                va="bottom", transform=ax.get_xaxis_transform())

    handles = [Patch(label=LABELS[k], **STYLE[k]) for k in KIND_NAMES if k in used]
    if result.deadlocked:
        ax.axvline(end, color="#C0392B", linewidth=2)
        ax.text(end, 1.005, f"deadlock at t={end:g}", color="#C0392B", fontsize=9,
                fontweight="bold", ha="center", va="bottom", transform=ax.get_xaxis_transform())
        handles.append(Line2D([], [], color="#C0392B", linewidth=2, label="deadlock"))
        note = result.headline + "."
        if result.queued:
            note += f" ({result.queued} still queued.)"
        fig.text(0.01, 0.01, textwrap.fill(note, 150), fontsize=8.5, color="#C0392B",
                 va="bottom")

    ax.set_xlim(0, right)
    ax.set_ylim(rows - 0.5, -0.5)  # slot 0 on top
    ax.set_yticks(range(rows))
    ax.set_yticklabels([f"CU{s // m.resident} slot {s % m.resident}" for s in range(rows)],
                       fontsize=7 if rows > 16 else 8)
    ax.set_xlabel("time (one compute step = 1)")
    shown = f", showing {rows} of {m.slots} slots" if rows < m.slots else ""
    if len(visible) > MAX_EXACT_BARS:
        shown += ", each pixel shows its main activity"
    per = " per dispatch" if result.dispatches > 1 else ""
    n = result.workgroups // max(result.dispatches, 1)
    verdict = (f"deadlock at t={end:g}" if result.deadlocked else
               f"completes, makespan {end:g}, utilization {result.utilization or 0:.0%}")
    ax.set_title(f"{result.scenario}: {n} workgroups{per} — {verdict}\n"
                 f"{m.describe()}, policy {result.policy}{shown}", fontsize=10, pad=16)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=8,
              frameon=False)
    ax.grid(axis="x", color="#EEEEEE")
    ax.set_axisbelow(True)
    fig.tight_layout(rect=(0, 0.05 if result.deadlocked else 0, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _label_bars(ax, segments, result, rows, right):
    """Write the workgroup id on bars wide enough to hold it."""
    min_width = right / 60
    for slot, wg, start, stop, kind in segments:
        if stop - start >= min_width:
            ax.text((start + stop) / 2, slot, str(wg), ha="center", va="center", fontsize=7,
                    color="white" if kind in (0, 1) else "#333333")
    for wait in result.waiting:
        if wait.slot < rows:
            what = f"waits for {wait.on[0]}" if len(wait.needs) == 1 else "waits"
            ax.text(wait.since + min_width / 2, wait.slot, f"{wait.workgroup} {what} ({wait.reason})",
                    ha="left", va="center", fontsize=7, color="#8B1A1A",
                    bbox=dict(facecolor="white", edgecolor="none", pad=0.6, alpha=0.85))


def _binned_bars(segments, rows, right):
    """Bars at pixel resolution: each (row, time bin) shows the kind it spent most time in.

    Drawing 400,000 sub-pixel bars takes matplotlib many seconds and looks the same.
    """
    import numpy as np

    width = right / BINS
    cover = np.zeros((len(KIND_NAMES), rows, BINS + 1))
    seg = np.array([(slot, kind, start, stop) for slot, _, start, stop, kind in segments])
    slot, kind = seg[:, 0].astype(int), seg[:, 1].astype(int)
    first = np.minimum((seg[:, 2] / width).astype(int), BINS - 1)
    last = np.minimum((seg[:, 3] / width).astype(int), BINS - 1)
    # Time inside the first and last bin, and full bins in between (difference array).
    np.add.at(cover, (kind, slot, first), np.where(first == last, seg[:, 3] - seg[:, 2],
                                                    (first + 1) * width - seg[:, 2]))
    spans = first < last
    np.add.at(cover, (kind[spans], slot[spans], last[spans]),
              seg[spans, 3] - last[spans] * width)
    full = np.zeros_like(cover)
    inner = spans & (last > first + 1)
    np.add.at(full, (kind[inner], slot[inner], first[inner] + 1), width)
    np.add.at(full, (kind[inner], slot[inner], last[inner]), -width)
    cover = (cover + np.cumsum(full, axis=2))[:, :, :BINS]
    dominant = np.where(cover.max(axis=0) > width * 0.05, cover.argmax(axis=0), -1)
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for row in range(rows):
        run_start = 0
        line = dominant[row]
        for b in range(1, BINS + 1):
            if b == BINS or line[b] != line[run_start]:
                if line[run_start] >= 0:
                    bars.setdefault((row, KIND_NAMES[line[run_start]]), []).append(
                        (run_start * width, (b - run_start) * width))
                run_start = b
    return bars
