"""`aqmlab evaluate AQM [AQM ...]`: RFC 7928's scenarios with each AQM, and the report card
(docs/evaluate.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..engine.outdir import check_target
from .arg_types import RESULTS_DIR
from .sweep import add_backend_arguments, add_jobs_argument, add_output_arguments, report_runs


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluate.report import rank_text
    from ..evaluate.run import check_aqms, check_sections, evaluate
    from ..present.common import display

    aqms = check_aqms(args.aqms)
    chosen = check_sections(args.sections)
    suffix = "-quick" if args.quick else ""
    default = RESULTS_DIR / f"evaluate-{'-'.join(aqms)}{suffix}"
    out_dir = Path(args.out) if args.out is not None else default
    check_target(out_dir, "evaluate", args.overwrite)
    command = "aqmlab evaluate " + " ".join(aqms) + (" --quick" if args.quick else "")
    command += "" if args.baseline else " --no-baseline"
    if args.sections:
        command += f" --sections {','.join(chosen or [])}"
    outcome = evaluate(
        aqms,
        out_dir,
        quick=args.quick,
        chosen=chosen,
        jobs=args.jobs,
        progress=not args.quiet,
        overwrite=args.overwrite,
        backend=args.backend,
        address=args.address,
        max_memory=args.max_memory,
        command=command,
        baseline=args.baseline,
    )
    for result in outcome.results:
        if result.ranking.empty:
            continue
        s = result.section
        order = ", ".join(
            f"{rank_text(r['rank'])}. {display(r['aqm'])}" for _, r in result.ranking.iterrows()
        )
        print(f"{s.rfc:>4} {s.stem:<17} {order}")
    return report_runs(outcome.sweep, f"report: {outcome.report}", outcome.wall_s)


def add_parser(commands: Any) -> None:
    """Add `evaluate` to the `aqmlab` parser's subcommands."""
    p = commands.add_parser(
        "evaluate",
        help="run RFC 7928's characterisation scenarios with each AQM and write a report card",
    )
    p.add_argument("aqms", nargs="+", metavar="AQM", help="the AQMs to evaluate (aqmlab list)")
    p.add_argument("--quick", action="store_true", help="one seed and shorter runs (a few minutes)")
    p.add_argument(
        "--no-baseline",
        dest="baseline",
        action="store_false",
        help="leave out drop tail, the reference every AQM is compared with (RFC 7928 §4.3)",
    )
    p.add_argument(
        "--sections",
        metavar="LIST",
        help="only these sections, e.g. transport,ecn (default: all; docs/evaluate.md)",
    )
    add_jobs_argument(p)
    add_backend_arguments(p)
    add_output_arguments(p, "evaluate-<AQMs>[-quick]")
    p.set_defaults(func=_cmd_evaluate)
