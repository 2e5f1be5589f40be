"""The `wgprim` command: info | demo | warmup | check | simulate | bench.

Each subcommand lives with the part of wgprim it belongs to and exposes two functions:
`configure(parser)` adds its arguments to an argparse sub-parser, and `run(args) -> int`
does the work and returns the exit status. Modules are imported only when their
subcommand is used, so `wgprim check` and `wgprim simulate` never touch the GPU.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> (module, one-line help)
SUBCOMMANDS = {
    "info": ("wgprim.info", "show adapters, backend, limits and features"),
    "demo": ("wgprim.demo", "run every primitive on random data and check it against numpy"),
    "warmup": ("wgprim.warmup", "compile every primitive's kernels now and show what first calls cost"),
    "check": ("wgprim.check.cli", "lint WGSL for cross-workgroup synchronization mistakes"),
    "simulate": ("wgprim.sim.cli", "simulate workgroup scheduling: see why spin-waits deadlock"),
    "bench": ("wgprim.bench.cli", "benchmark wgprim against numpy, CuPy and PyTorch"),
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose errors are one line on stderr (exit 2): what is wrong and
    where help is, without the usage block in front of it."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} -h`)\n")


def build_parser(argv: list[str]) -> tuple[argparse.ArgumentParser, dict]:
    """The parser, with the full arguments of the chosen subcommand only: the other
    modules are not imported (their help line comes from SUBCOMMANDS)."""
    parser = _Parser(
        prog="wgprim",
        description="GPU parallel primitives on WebGPU, and tools about the rule that "
        "workgroups cannot synchronize with each other.",
    )
    parser.add_argument("--version", action="version", version=f"wgprim {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    modules = {}
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        if name != chosen:
            sub.add_parser(name, help=help_text, description=help_text)
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:  # one broken part must not take the others down
            module = _Unavailable(name, error)
        p = sub.add_parser(name, help=help_text, description=(module.__doc__ or help_text).strip().splitlines()[0])
        module.configure(p)
        modules[name] = module
    return parser, modules


def _version() -> str:
    from wgprim import __version__  # imports no numpy and touches no GPU

    return __version__


class _Unavailable:
    """Stands in for a subcommand whose module cannot be imported, and says why."""

    def __init__(self, name: str, error: ImportError):
        self.name, self.error, self.__doc__ = name, error, None

    def configure(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("rest", nargs=argparse.REMAINDER)

    def run(self, args) -> int:
        print(f"error: `wgprim {self.name}` is unavailable: {self.error}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser, modules = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(modules[args.command].run(args) or 0)
    except BrokenPipeError:  # output piped into a reader that stopped early (`| head`)
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
