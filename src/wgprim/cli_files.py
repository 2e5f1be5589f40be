"""Output files of the command-line tools (`--json`, `--plot`), checked before a run
starts, so that a long simulation or benchmark is not lost to a path it cannot write."""
from __future__ import annotations

import os


def check_output_file(path: str | None, option: str) -> str | None:
    """None when `path` can be written (its folder exists and is writable, and it is not a
    folder), else what is wrong."""
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        return f"{option} {path}: is a folder, not a file"
    if not os.path.isdir(folder):
        return f"{option} {path}: folder {folder} does not exist"
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        return f"{option} {path}: cannot be written (permissions)"
    return None


def check_plot_file(path: str | None, option: str = "--plot") -> str | None:
    """check_output_file, and matplotlib installed and able to write the format the name's
    extension names (a name without one would be written as NAME.png, not NAME)."""
    problem = check_output_file(path, option)
    if problem or path is None:
        return problem
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return f"{option} needs matplotlib: pip install 'wgprim[plot]'"
    formats = Figure().canvas.get_supported_filetypes()
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    if extension not in formats:
        named = f"'.{extension}'" if extension else "no extension"
        return (f"{option} {path}: {named} is not a format matplotlib writes; end the name with one of "
                + ", ".join(f".{f}" for f in sorted(formats)))
    return None
