"""`aqmlab validate ns2|ns3 [--quick] [--jobs N] [--out DIR] [--overwrite]` (and `--aqm NAMES`,
`--tcp NAMES` for ns3): run the same scenarios in aqmlab and in ns-2.35 or ns-3.37 (resumable)
and write a comparison page. See docs/validation-ns2.md and docs/validation-ns3.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.outdir import open_resumable
from .arg_types import job_count

if TYPE_CHECKING:
    from ..validate.common import Outcome

RESULTS_DIR = Path("results")

ErrorType = Callable[[str], Exception]


def _on_done(args: argparse.Namespace) -> Callable[[str, float], None]:
    def done(rid: str, wall_s: float) -> None:
        if not args.quiet:
            print(f"  stored {rid} ({wall_s:.1f} s)", file=sys.stderr, flush=True)

    return done


def _report(outcome: Outcome, table: str, pages: list[Path]) -> int:
    print(table)
    print(
        f"\n{outcome.total} runs: {outcome.skipped} already stored, {outcome.ran} run now, "
        f"{len(outcome.failed)} failed"
    )
    for path in pages:
        print(f"page: {path}")
    if outcome.failed:
        for rid, message in outcome.failed:
            print(f"aqmlab: run {rid} failed: {message}", file=sys.stderr)
        return 1
    return 0


def _out_dir(args: argparse.Namespace, simulator: str) -> Path:
    default = RESULTS_DIR / f"validate-{simulator}{'-quick' if args.quick else ''}"
    return open_resumable(args.out if args.out is not None else default, "validate", args.overwrite)


def cmd_ns2(args: argparse.Namespace) -> int:
    # here, not at the top: other commands start without it
    from ..validate.common import ValidationError, default_jobs
    from ..validate.ns2 import suite as validate_ns2

    error: ErrorType = args.validate_error
    try:
        ns = validate_ns2.find_ns()
        validate_ns2.check_files()
    except ValidationError as e:
        raise error(str(e)) from None
    g = validate_ns2.grid(args.quick)
    out = _out_dir(args, "ns2")
    jobs = args.jobs or default_jobs()
    outcome = validate_ns2.execute(out, g, jobs, ns, on_done=_on_done(args))
    path, table = validate_ns2.write_outputs(out, g, args.quick)
    return _report(outcome, table, [path])


def cmd_ns3(args: argparse.Namespace) -> int:
    # here, not at the top: other commands start without it
    from ..validate.common import ValidationError, default_jobs, in_checkout
    from ..validate.ns3 import page as ns3_page
    from ..validate.ns3 import program as ns3_program
    from ..validate.ns3 import suite as validate_ns3

    error: ErrorType = args.validate_error
    if args.bridge and args.betared:
        raise error("--bridge and --betared: choose one")
    if args.bridge:
        return cmd_ns3_bridge(args)
    if args.betared:
        return cmd_ns3_betared(args)
    try:
        g = validate_ns3.grid(args.quick, None, args.tcp)
        if args.aqm is not None:
            g = validate_ns3.only_aqms(g, args.aqm)
        # The quick check covers the congestion controls too: the quick TCP grid, less CUBIC's
        # case (the AQM grid's own), with a page of its own.
        grids = [(g, "validation-ns3")]
        if args.quick and args.tcp is None and args.aqm is None:
            tcp = validate_ns3.grid(True, None, ["all"])
            tcp = validate_ns3.Grid(
                tuple(c for c in tcp.cases if c.cc != "cubic"), tcp.seeds_by_scenario, tcp.timeout_s
            )
            grids.append((tcp, "validation-ns3-tcp"))
    except ValueError as e:
        raise error(str(e)) from None
    try:
        validate_ns3.check_files()
        ns3_program.check_tools()  # ns-3 and g++ are there, unless a program is named
        for grid, _ in grids:
            validate_ns3.check_grid(grid)
        prog = ns3_program.program()  # builds once per source digest
    except ValidationError as e:
        raise error(str(e)) from None
    out = _out_dir(args, "ns3")
    jobs = args.jobs or default_jobs()
    outcome = validate_ns3.execute(
        out, validate_ns3.joined(grid for grid, _ in grids), jobs, prog, on_done=_on_done(args)
    )
    # The whole full grid's page is the project's page; a quick grid's, or that of a few
    # AQMs' cases, stays in its folder.
    partial = args.quick or args.aqm is not None or args.tcp is not None
    docs = None if partial or not in_checkout() else validate_ns3.DOCS_PAGE
    paths, tables = [], []
    for grid, stem in grids:
        path, table = ns3_page.write_outputs(out, grid, args.quick, prog, docs, stem)
        paths.append(path)
        tables.append(table)
    return _report(outcome, "\n\n".join(tables), paths if docs is None else [*paths, docs])


def _bridge_programs(error: ErrorType, check_arguments: Callable[[], object]) -> Any:
    """The two ns-3 program builds (ns-3's own queue discs, and the bridge), after checking the
    sources, the tools and every run's arguments (`check_arguments`); the one-line usage
    error otherwise."""
    from ..validate.common import ValidationError
    from ..validate.ns3 import bridge
    from ..validate.ns3 import program as ns3_program
    from ..validate.ns3 import suite as validate_ns3

    try:
        validate_ns3.check_files()
        ns3_program.check_tools()
        check_arguments()
        return bridge.Programs(ns3_program.program(), ns3_program.program(bridge=True))
    except ValidationError as e:
        raise error(str(e)) from None


def cmd_ns3_bridge(args: argparse.Namespace) -> int:
    """`validate ns3 --bridge`: every single-queue aqmlab AQM inside ns-3 through the bridge,
    against aqmlab and, where ns-3 has one, against ns-3's own queue disc."""
    from ..validate.common import default_jobs, in_checkout
    from ..validate.ns3 import bridge
    from ..validate.ns3 import suite as validate_ns3

    error: ErrorType = args.validate_error
    if args.tcp is not None:
        raise error("--tcp: not with --bridge (the bridge runs the AQMs' grid)")
    try:
        g = bridge.grid(args.quick, args.aqm)
    except ValueError as e:
        raise error(str(e)) from None
    progs = _bridge_programs(error, lambda: [validate_ns3.ns3_args(c, 1, True) for c in g.cases])
    out = _out_dir(args, "ns3-bridge")
    jobs = args.jobs or default_jobs()
    outcome = bridge.execute(out, g, jobs, progs, on_done=_on_done(args))
    # The quick grid's page is the project's page (the full grid takes a day of ns-3 runs).
    whole = args.quick and args.aqm is None and in_checkout()
    docs = bridge.DOCS_PAGE if whole else None
    path, table = bridge.write_outputs(out, g, args.quick, progs, docs)
    return _report(outcome, table, [path] if docs is None else [path, docs])


def cmd_ns3_betared(args: argparse.Namespace) -> int:
    """`validate ns3 --betared`: the BetaRED paper's Figs. 8 and 9 in ns-3.37 (ABetaRED and
    DBetaRED through the bridge) and in aqmlab, judged by the reproduction's criteria."""
    from ..validate.common import default_jobs
    from ..validate.ns3 import betared_ns3

    error: ErrorType = args.validate_error
    if args.tcp is not None or args.aqm is not None:
        raise error("--betared: runs the figures' own AQMs; drop --aqm and --tcp")
    pts = betared_ns3.points(args.quick)
    progs = _bridge_programs(error, lambda: [betared_ns3.ns3_args(p) for p in pts])
    out = _out_dir(args, "ns3-betared")
    jobs = args.jobs or default_jobs()
    outcome = betared_ns3.execute(out, pts, jobs, progs, on_done=_on_done(args))
    path, table = betared_ns3.write_outputs(out, pts, progs, args.quick)
    return _report(outcome, table, [path])


def _names(text: str) -> list[str]:
    """A comma-separated list of AQM or congestion-control names, checked against the grid's
    by `grid()`."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _add_common(p: argparse.ArgumentParser, simulator: str) -> None:
    p.add_argument("--jobs", type=job_count, help="runs at a time (default: the CPUs, at most 2)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help=f"output directory (default {RESULTS_DIR}/validate-{simulator}[-quick])",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier aqmlab result of another kind in the output folder "
        "(an earlier validation is resumed)",
    )
    p.add_argument("--quiet", action="store_true", help="no line per finished run")


def add_parser(commands: Any, error: ErrorType) -> argparse.ArgumentParser:
    """Add `validate` and its subcommands to the `aqmlab` parser's subcommands; `error` is the
    exception class the CLI reports as a one-line usage error."""
    p_validate = commands.add_parser(
        "validate", help="run the same scenarios in aqmlab and another simulator and compare"
    )
    p_validate.set_defaults(validate_error=error)
    sub = p_validate.add_subparsers(dest="validate_command", required=True, metavar="SIMULATOR")
    p = sub.add_parser(
        "ns2", help="against ns-2.35 on Li et al. (2014)'s single bottleneck (needs `ns`)"
    )
    p.add_argument(
        "--quick", action="store_true", help="N = 100, 30 s runs, 2 seeds (about a minute)"
    )
    _add_common(p, "ns2")
    p.set_defaults(func=cmd_ns2)
    p = sub.add_parser(
        "ns3",
        help="against ns-3.37 on the BetaRED dumbbell with nine AQMs (needs libns3-dev and g++)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="scenario 1 at N = 50 and 200, and its mixed-RTT and UDP-flood variants at N = 50 "
        "for COBALT and the FQ AQMs, and the quick TCP grid (every congestion control ns-3 "
        "also has, page validation-ns3-tcp.md), 20 s runs, 1 seed (several minutes); the full "
        "grid takes hours and rewrites docs/validation-ns3.md",
    )
    p.add_argument(
        "--aqm",
        type=_names,
        metavar="NAME[,NAME...]",
        help="only these AQMs' cases of the grid (droptail, red, ared, pie, codel, cobalt, "
        "fq_codel, fq_pie, fq_cobalt); the page then stays in the output folder",
    )
    p.add_argument(
        "--tcp",
        type=_names,
        metavar="NAME[,NAME...]|all",
        help="the TCP grid instead: these congestion controls (all: every one aqmlab has and "
        "the ns-3 mapping names) on scenario 1 at N = 50 through drop tail (DCTCP: RED step "
        "marking; BBR: also FQ-CoDel); --aqm then keeps those AQMs' cases of it; the page stays "
        "in the output folder",
    )
    p.add_argument(
        "--bridge",
        action="store_true",
        help="cross-validation instead: every single-queue aqmlab AQM run inside ns-3 through "
        "the AqmlabQueueDisc (docs/ns3.md) against aqmlab's own simulator, and against ns-3's "
        "own queue disc where ns-3 has one (quick: N = 50 and 200, 20 s, seeds 1-2, about a "
        "quarter of an hour, rewrites docs/validation-ns3-bridge.md; the full grid: N up to "
        "800, 50 s, seeds 1-3); needs the checkout",
    )
    p.add_argument(
        "--betared",
        action="store_true",
        help="the BetaRED paper's Figs. 8 and 9 in ns-3.37 instead (ABetaRED and DBetaRED "
        "through the bridge, ARED, CoDel and PIE as ns-3's own) and in aqmlab, each judged by "
        "the reproduction's criteria (quick: 15 ns-3 runs of 100 s, about half an hour on two "
        "cores; full: 90 runs of 250 s, about a day); needs the checkout",
    )
    _add_common(p, "ns3")
    p.set_defaults(func=cmd_ns3)
    return p_validate
