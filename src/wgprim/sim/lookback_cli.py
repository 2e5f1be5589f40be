"""`wgprim simulate lookback-loop-cap`: the look-back's walk under a driver's loop cap.

Runs the model of lookback.py on worker threads (lookback_run.run_timed) and checks every
tile against the scan: `right`, or `wrong` with each wrong tile and why. The options are
added to `wgprim simulate`'s parser by cli.py.
"""
from __future__ import annotations

import argparse
import json
import math

from wgprim.device import LLVMPIPE_LOOP_CAP
from wgprim.ops.chained_scan import SPIN_BUDGET

from .lookback import PROTOCOLS, Case
from .lookback_run import CONTIGUOUS, Outcome, run_timed

NAME = "lookback-loop-cap"
SUMMARY = ("the single-pass scan's look-back on a driver that caps each invocation's loop "
           "iterations (llvmpipe)")
DEFAULT_ELEMENTS = 30_000_000
DEFAULT_TILE = 8192  # u32 elements per tile on the striped layout
SHOWN = 10  # wrong tiles listed one by one


def add_options(parser: argparse.ArgumentParser, positive, non_negative) -> None:
    group = parser.add_argument_group(f"{NAME} (one workgroup per tile; -n gives the tiles)")
    group.add_argument("--protocol", choices=list(PROTOCOLS), default="new",
                       help="old: one dispatch, fallback with loops; new: dispatches of "
                            "lookback_tiles(), loop-free fallback; loop-free: the loop-free "
                            "fallback in one dispatch (default new)")
    group.add_argument("--workers", type=positive, default=2, metavar="T",
                       help="threads running one workgroup at a time (llvmpipe: "
                            "LP_NUM_THREADS; default 2)")
    group.add_argument("--elements", type=positive, metavar="N",
                       help=f"elements scanned (default {DEFAULT_ELEMENTS})")
    group.add_argument("--tile-size", type=positive, default=DEFAULT_TILE, metavar="E",
                       help=f"elements per tile (default {DEFAULT_TILE})")
    group.add_argument("--spin-budget", type=non_negative, default=SPIN_BUDGET, metavar="K",
                       help=f"polls of a NOT READY predecessor after the first, before the "
                            f"fallback (default {SPIN_BUDGET})")
    group.add_argument("--window", type=positive, default=8, metavar="W",
                       help="predecessors read per window (the subgroup size; default 8)")
    group.add_argument("--loop-cap", type=non_negative, default=LLVMPIPE_LOOP_CAP, metavar="I",
                       help=f"loop iterations an invocation may run (default "
                            f"{LLVMPIPE_LOOP_CAP}, llvmpipe's; 0: no cap)")
    group.add_argument("--no-publish-fallback", action="store_true",
                       help="fallbacks publish nothing (float sums, user monoids)")


def run(args: argparse.Namespace, fail, max_tiles: int) -> int:
    if args.plot:
        fail(f"--plot draws slots of the deadlock scenarios; {NAME} has no plot")
    policy = args.policy or CONTIGUOUS
    if args.workgroups is not None and args.elements is not None:
        fail("give either --workgroups (tiles) or --elements, not both")
    if args.workgroups is not None:
        tiles = args.workgroups
        elements = tiles * args.tile_size
    else:
        elements = args.elements or DEFAULT_ELEMENTS
        tiles = math.ceil(elements / args.tile_size)
    if tiles > max_tiles:
        fail(f"{tiles} tiles: the simulator is limited to {max_tiles} (raise --tile-size)")
    case = Case(tiles, PROTOCOLS[args.protocol], spin_budget=args.spin_budget,
                window=args.window, loop_cap=args.loop_cap or None,
                publish_fallback=not args.no_publish_fallback)
    outcome = run_timed(case, policy, args.workers, args.seed)
    if args.json:
        print(json.dumps(to_dict(outcome, elements, args.tile_size)))
    else:
        print(report(outcome, elements, args.tile_size))
    return 0


def _elements(tile: int, elements: int, tile_size: int) -> str:
    return f"elements {tile * tile_size}..{min((tile + 1) * tile_size, elements) - 1}"


def _dispatches(case: Case) -> str:
    count, per = len(case.dispatches()), case.dispatch_tiles()
    if count == 1:
        return f"1 dispatch of {case.tiles} tiles"
    why = (f" (lookback_tiles at spin budget {case.spin_budget}, loop cap {case.loop_cap})"
           if case.protocol.split else "")
    return f"{count} dispatches of at most {per} tiles{why}"


def _cap(case: Case) -> str:
    return "no loop cap" if case.loop_cap is None else f"loop cap {case.loop_cap}"


def report(outcome: Outcome, elements: int, tile_size: int) -> str:
    case, p = outcome.case, outcome.case.protocol
    lines = [f"{NAME}: {SUMMARY}",
             f"protocol {p.name}: {p.summary}",
             f"{elements} elements = {case.tiles} tiles of {tile_size}, {_dispatches(case)}",
             f"{outcome.workers} worker{'s' if outcome.workers != 1 else ''}, policy "
             f"{outcome.policy}{' seed ' + str(outcome.seed) if outcome.policy == 'random' else ''}; "
             f"spin budget {case.spin_budget}; windows of {case.window} tiles at "
             f"{p.window_iterations} loop iterations, fallbacks at {p.fallback_iterations}"
             f"{'' if case.publish_fallback else ' (publishing nothing)'}; {_cap(case)}"]
    wrong = outcome.wrong
    if wrong:
        lines.append(f"verdict: wrong, {len(wrong)} of {case.tiles} tiles")
        walks = {w.tile: w for w in outcome.walks}
        for t in wrong[:SHOWN]:
            line = f"  tile {t} ({_elements(t, elements, tile_size)}): {outcome.why(t)}"
            w = walks[t]
            if w.cut:
                line += (f"; its loops were cut at {w.iterations} loop iterations, "
                         f"{w.walked} tiles into its look-back")
            lines.append(line)
        if len(wrong) > SHOWN:
            lines.append(f"  ... and {len(wrong) - SHOWN} more")
    else:
        lines.append(f"verdict: right, all {case.tiles} tiles")
    w = outcome.longest()
    lines.append(f"longest look-back: tile {w.tile}"
                 f"{f' (dispatch {w.dispatch + 1})' if len(outcome.dispatches) > 1 else ''}, "
                 f"{w.walked} tiles back, {w.windows} windows, {w.fallbacks} fallbacks, "
                 f"{w.iterations} loop iterations{' (cut)' if w.cut else ''}")
    longest = case.dispatch_tiles() - 1
    lines.append(f"bound: a look-back over at most {longest} tiles (its dispatch's) costs at "
                 f"most {case.walk_bound(longest)} loop iterations: "
                 f"{'within' if case.loop_cap is None or case.walk_bound(longest) <= case.loop_cap else 'past'} "
                 f"the {_cap(case)}")
    lines.append(f"makespan {outcome.makespan:g} tile reads")
    return "\n".join(lines)


def to_dict(outcome: Outcome, elements: int, tile_size: int) -> dict:
    """The --json object."""
    case, p = outcome.case, outcome.case.protocol
    longest = outcome.longest()
    return {
        "scenario": NAME, "protocol": p.name, "elements": elements, "tile_size": tile_size,
        "tiles": case.tiles, "dispatches": len(outcome.dispatches),
        "dispatch_tiles": case.dispatch_tiles(), "workers": outcome.workers,
        "policy": outcome.policy, "seed": outcome.seed, "spin_budget": case.spin_budget,
        "window": case.window, "loop_cap": case.loop_cap,
        "window_iterations": p.window_iterations, "fallback_iterations": p.fallback_iterations,
        "publish_fallback": case.publish_fallback,
        "verdict": "wrong" if outcome.wrong else "right",
        "wrong_tiles": outcome.wrong,
        "why": {str(t): outcome.why(t) for t in outcome.wrong[:SHOWN]},
        "cut_tiles": outcome.cut,
        "longest": {"tile": longest.tile, "dispatch": longest.dispatch + 1,
                    "walked": longest.walked, "windows": longest.windows,
                    "fallbacks": longest.fallbacks, "iterations": longest.iterations,
                    "cut": longest.cut},
        "walk_bound": case.walk_bound(case.dispatch_tiles() - 1),
        "makespan": outcome.makespan,
    }
