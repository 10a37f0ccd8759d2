"""`aqmlab validate ns2 [--quick] [--jobs N] [--out DIR] [--overwrite]`: run the same
single-bottleneck scenarios in aqmlab and in ns-2.35 (resumable) and write a comparison page.
See docs/validation-ns2.md."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import validate
from .arg_types import job_count
from .outdir import open_resumable

RESULTS_DIR = Path("results")

ErrorType = Callable[[str], Exception]


def cmd_ns2(args: argparse.Namespace) -> int:
    error: ErrorType = args.validate_error
    try:
        ns = validate.find_ns()
        validate.check_files()
    except validate.ValidationError as e:
        raise error(str(e)) from None
    quick = args.quick
    g = validate.grid(quick)
    default = RESULTS_DIR / f"validate-ns2{'-quick' if quick else ''}"
    out = open_resumable(args.out if args.out is not None else default, "validate", args.overwrite)
    jobs = args.jobs or validate.default_jobs()

    def done(rid: str, wall_s: float) -> None:
        if not args.quiet:
            print(f"  stored {rid} ({wall_s:.1f} s)", file=sys.stderr, flush=True)

    outcome = validate.execute(out, g, jobs, ns, on_done=done)
    path, table = validate.write_outputs(out, g, quick)
    print(table)
    print(
        f"\n{outcome.total} runs: {outcome.skipped} already stored, {outcome.ran} run now, "
        f"{len(outcome.failed or [])} failed"
    )
    print(f"page: {path}")
    if outcome.failed:
        for rid, message in outcome.failed:
            print(f"aqmlab: run {rid} failed: {message}", file=sys.stderr)
        return 1
    return 0


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
    p.add_argument("--jobs", type=job_count, help="runs at a time (default: the CPUs, at most 2)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help=f"output directory (default {RESULTS_DIR}/validate-ns2[-quick])",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier aqmlab result of another kind in the output folder "
        "(an earlier validation is resumed)",
    )
    p.add_argument("--quiet", action="store_true", help="no line per finished run")
    p.set_defaults(func=cmd_ns2)
    return p_validate
