"""Simulate how a GPU schedules workgroups, and see why a spin-wait deadlocks and a dispatch boundary does not.

`wgprim simulate SCENARIO --workgroups N --compute-units C --resident R --policy P`
runs a built-in scenario on a model GPU (no GPU needed) and prints its verdict:
`completes` with the makespan and slot utilization, or `deadlock` with who waits for whom.
`wgprim simulate lookback-loop-cap` runs the single-pass scan's look-back under a loop cap
instead, and checks its tiles (lookback_cli.py). Exit status 0 whenever the simulation ran,
2 on bad arguments.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap

from . import lookback_cli
from .lookback_run import CONTIGUOUS
from .lookback_run import DESCRIPTIONS as LOOKBACK_POLICIES
from .machine import CU_INVOCATIONS, CU_MAX_WORKGROUPS, CU_WORKGROUP_MEMORY, Machine, resident_per_cu
from .policies import DESCRIPTIONS, IN_ORDER, POLICIES
from .result import simulate
from .scenarios import SCENARIOS

DEFAULT_WORKGROUPS = 10_000
MAX_WORKGROUPS = 1_000_000  # a few seconds per 100,000; beyond this, memory becomes the limit
MAX_SLOTS = 1_000_000  # compute units x resident slots: the simulator keeps a list of the slots
DEFAULT_WORKGROUP_SIZE = 256
PLOT_HINT = "pip install 'wgprim[plot]'"


def _int_at_least(minimum: int, wanted: str):
    """An argparse type: an integer >= minimum, described as `wanted` in errors."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value}")
        return value
    return parse


_positive_int = _int_at_least(1, "a positive integer")
_non_negative_int = _int_at_least(0, "an integer >= 0")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    summaries = {**{name: b.summary for name, b in SCENARIOS.items()},
                 lookback_cli.NAME: lookback_cli.SUMMARY}
    parser.epilog = "scenarios:\n" + "\n".join(
        f"  {name:<20}{text}" for name, text in summaries.items()) + "\n\npolicies:\n" + \
        "\n".join(f"  {name:<20}{text}" for name, text in DESCRIPTIONS.items()) + \
        f"\n\npolicies of {lookback_cli.NAME} (workers run one workgroup at a time):\n" + \
        "\n".join(f"  {name:<20}{text}" for name, text in LOOKBACK_POLICIES.items()) + \
        "\n\nSee docs/simulate.md for the model and each scenario's deadlock condition."
    parser.add_argument("scenario", choices=list(summaries), metavar="SCENARIO",
                        help="one of: " + ", ".join(summaries))
    parser.add_argument("--workgroups", "-n", type=_positive_int, metavar="N",
                        help=f"workgroups per dispatch (default {DEFAULT_WORKGROUPS}; "
                             f"{lookback_cli.NAME}: tiles, default from --elements)")
    parser.add_argument("--compute-units", "-c", type=_positive_int, default=2, metavar="C",
                        help="compute units (default 2)")
    parser.add_argument("--resident", "-r", type=_positive_int, metavar="R",
                        help="resident workgroup slots per compute unit (default: derived "
                             "from --workgroup-size and --workgroup-memory, 8 for 256 "
                             "invocations)")
    size = parser.add_argument_group("deriving --resident from what a workgroup uses")
    size.add_argument("--workgroup-size", type=_positive_int, metavar="I",
                      help=f"invocations per workgroup (default {DEFAULT_WORKGROUP_SIZE})")
    size.add_argument("--workgroup-memory", type=_non_negative_int, metavar="BYTES",
                      help="workgroup memory per workgroup (default 0)")
    size.add_argument("--cu-invocations", type=_positive_int, default=CU_INVOCATIONS,
                      metavar="I", help=f"invocations a compute unit holds (default {CU_INVOCATIONS})")
    size.add_argument("--cu-memory", type=_positive_int, default=CU_WORKGROUP_MEMORY,
                      metavar="BYTES",
                      help=f"workgroup memory of a compute unit (default {CU_WORKGROUP_MEMORY})")
    size.add_argument("--cu-max-workgroups", type=_positive_int, default=CU_MAX_WORKGROUPS,
                      metavar="K", help=f"workgroups a compute unit holds at most "
                                        f"(default {CU_MAX_WORKGROUPS})")
    parser.add_argument("--policy", "-p", choices=POLICIES + (CONTIGUOUS,),
                        help=f"scheduling policy (default in-order; {lookback_cli.NAME}: "
                             f"{CONTIGUOUS}, which only it has)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed for the random policy and the adversary's tie-breaks")
    parser.add_argument("--tries", type=_positive_int, default=4, metavar="K",
                        help="decoupled-fallback: polls before giving up (default 4)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="FILE.png",
                        help=f"draw a timeline of the slots (needs matplotlib: {PLOT_HINT})")
    lookback_cli.add_options(parser, _positive_int, _non_negative_int)
    parser.set_defaults(_simulate_parser=parser)


def _machine(args, fail) -> tuple[Machine, str]:
    """The machine and a note on where its resident count comes from."""
    derived = args.workgroup_size is not None or args.workgroup_memory is not None
    if args.resident is not None:
        if derived:
            fail("give either --resident or --workgroup-size/--workgroup-memory, not both")
        return Machine(args.compute_units, args.resident), ""
    size = args.workgroup_size or DEFAULT_WORKGROUP_SIZE
    memory = args.workgroup_memory or 0
    try:
        resident = resident_per_cu(size, memory, cu_invocations=args.cu_invocations,
                                   cu_workgroup_memory=args.cu_memory,
                                   cu_max_workgroups=args.cu_max_workgroups)
    except ValueError as error:
        fail(str(error))
    limits = [(args.cu_invocations // size,
               f"a compute unit holds {args.cu_invocations} invocations, {size} per workgroup")]
    if memory:
        limits.append((args.cu_memory // memory, f"a compute unit has {args.cu_memory} bytes "
                                                 f"of workgroup memory, {memory} per workgroup"))
    limits.append((args.cu_max_workgroups,
                   f"a compute unit holds at most {args.cu_max_workgroups} workgroups"))
    reason = min(limits, key=lambda limit: limit[0])[1]
    return Machine(args.compute_units, resident), f"{resident} resident because {reason}"


def run(args: argparse.Namespace) -> int:
    parser = getattr(args, "_simulate_parser", None)

    def fail(message: str):
        if parser is not None:
            parser.error(message)  # exits with status 2
        print(f"wgprim simulate: error: {message}", file=sys.stderr)
        raise SystemExit(2)

    if args.scenario == lookback_cli.NAME:
        return lookback_cli.run(args, fail, MAX_WORKGROUPS)
    if args.policy == CONTIGUOUS:
        fail(f"--policy {CONTIGUOUS} (llvmpipe's thread pool) is for {lookback_cli.NAME}; "
             f"choose one of {', '.join(POLICIES)}")
    args.policy = args.policy or IN_ORDER
    if args.workgroups is None:
        args.workgroups = DEFAULT_WORKGROUPS
    if args.workgroups > MAX_WORKGROUPS:
        fail(f"--workgroups is limited to {MAX_WORKGROUPS}")
    machine, resident_note = _machine(args, fail)
    if machine.slots > MAX_SLOTS:
        fail(f"the machine has {machine.slots} workgroup slots (compute units x resident); the simulator is "
             f"limited to {MAX_SLOTS} (more slots than workgroups change nothing: use fewer)")
    if args.plot:
        folder = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(folder):
            fail(f"--plot: folder {folder} does not exist")
        try:
            import matplotlib  # noqa: F401  (only checking that it is there)
        except ImportError:
            fail(f"--plot needs matplotlib, which is not installed: {PLOT_HINT}")

    builtin = SCENARIOS[args.scenario]
    scenario = builtin.build(args.workgroups, args.tries)
    result = simulate(scenario, machine, args.policy, args.seed, trace=bool(args.plot))
    predicted, here = builtin.predict(args.workgroups, machine, result.start_orders)

    if args.json:
        out = result.to_dict()
        out["condition"] = builtin.condition
        out["condition_here"] = here
        out["predicted"] = "deadlock" if predicted else "completes"
        print(json.dumps(out))
    else:
        print(_report(builtin, result, args, resident_note, predicted, here))

    if args.plot:
        from .plot import plot_timeline
        plot_timeline(result, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _report(builtin, result, args, resident_note, predicted, here) -> str:
    m = result.machine
    per = " per dispatch" if result.dispatches > 1 else ""
    lines = [f"{builtin.name}: {builtin.summary}",
             f"{args.workgroups} workgroups{per}, {m.describe()}"
             f"{' (' + resident_note + ')' if resident_note else ''}, policy {result.policy}"
             f"{' seed ' + str(result.seed) if result.policy != IN_ORDER else ''}",
             result.summary()]
    wrap = textwrap.TextWrapper(width=92, initial_indent="condition: ",
                                subsequent_indent="  ")
    lines.append(wrap.fill(builtin.condition))
    agrees = "agrees" if predicted == result.deadlocked else "DISAGREES"
    lines.append(f"  here: {here}, so {'deadlock' if predicted else 'completes'} "
                 f"(the simulation {agrees})")
    return "\n".join(lines)
