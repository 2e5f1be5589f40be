"""Throughput against size, one chart per primitive: wgprim and each reference (GPU
time; rows of either JSON schema)."""
from __future__ import annotations

import numpy as np

from wgprim.bench.results import ref_ms


def plot(rows: list[dict], path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted({(r["primitive"], r["dtype"]) for r in rows if r["wgprim_ms"]})
    if not names:
        return
    cols = min(3, len(names))
    rows_n = -(-len(names) // cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(5 * cols, 3.6 * rows_n), squeeze=False)
    for ax, (prim, dtype) in zip(axes.flat, names):
        mine = sorted((r for r in rows if r["primitive"] == prim and r["dtype"] == dtype and r["wgprim_ms"]),
                      key=lambda r: r["n"])
        n = np.array([r["n"] for r in mine], dtype=np.float64)
        ax.plot(n, n / np.array([r["wgprim_ms"] for r in mine]) / 1e6, "o-", label="wgprim", lw=2)
        for ref in sorted({k for r in mine for k in ref_ms(r)}):
            pts = [(r["n"], ref_ms(r)[ref]) for r in mine if ref_ms(r).get(ref)]
            if pts:
                x, ms = np.array(pts, dtype=np.float64).T
                ax.plot(x, x / ms / 1e6, "s--", label=ref, alpha=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{prim} ({dtype})")
        ax.set_xlabel("elements")
        ax.set_ylabel("G elements / s")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.97))  # room for the title
    fig.savefig(path, dpi=110)
    plt.close(fig)
