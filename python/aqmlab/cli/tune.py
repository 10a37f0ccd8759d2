"""`aqmlab tune AQM --on EXPERIMENT`: a multi-objective search over an AQM's parameters on an
experiment's loads and seeds (resumable), with the Pareto front as a table and a figure."""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from .arg_types import add_memory_option, trial_count
from .sweep import add_backend_arguments, add_jobs_argument, report_runs


def _count(text: str) -> int:
    """An integer >= 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid count {text!r}: expected an integer >= 0")
    return value


def _command(args: argparse.Namespace) -> str:
    """The command as given (for report.md), its options in a fixed order."""
    words = ["aqmlab", "tune", args.aqm, "--on", args.on]
    if args.quick:
        words.append("--quick")
    for name in ("param", "objective"):
        for item in getattr(args, name) or ():
            words += [f"--{name}", item]
    for name in ("trials", "batch", "sampler", "seed", "rerun"):
        words += [f"--{name}", str(getattr(args, name))]
    return " ".join(shlex.quote(w) for w in words)


def _cmd_tune(args: argparse.Namespace) -> int:
    from ..tune.tuning import tune

    command = _command(args)
    result = tune(
        args.aqm,
        args.on,
        args.out,
        params=args.param or (),
        objectives=args.objective or (),
        quick=args.quick,
        trials=args.trials,
        batch=args.batch,
        sampler=args.sampler,
        seed=args.seed,
        rerun=args.rerun,
        jobs=args.jobs,
        backend=args.backend,
        address=args.address,
        overwrite=args.overwrite,
        max_memory=args.max_memory,
        progress=not args.quiet,
        command=command,
    )
    print("\n".join(result.summary_lines()))
    on_front = int(result.trials["on_front"].sum())
    print(
        f"\nPareto front ({on_front} of {len(result.trials)} trials) and the default "
        "parameters (the experiment's own values):"
    )
    print(result.front_text())
    if not result.rerun.empty:
        print(
            "\nThe chosen points with seeds 1-5 (mean ± std over the seeds, each seed's value "
            "the mean over the loads):"
        )
        print(result.rerun_text())
    return report_runs(result.runs, f"results: {result.out_dir}")


def add_parser(commands: Any) -> None:
    """Add `tune` to the `aqmlab` parser's subcommands."""
    p = commands.add_parser(
        "tune",
        help="search an AQM's parameters for the Pareto front of chosen metrics on an "
        "experiment's runs (resumable)",
    )
    p.add_argument("aqm", metavar="AQM", help="the AQM to tune (aqmlab list)")
    p.add_argument(
        "--on",
        metavar="EXPERIMENT",
        required=True,
        help="experiment file or built-in name (betared/fig8): its loads and seeds make each "
        "trial; its queue.aqm is set to AQM",
    )
    p.add_argument("--quick", action="store_true", help="use the experiment's [quick] grid")
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME[=LO:HI[:log|linear]]",
        help="a parameter to tune and its range (repeatable); NAME alone: its default range "
        "(default ÷ and × 10 inside what the registry allows); default: the AQM's usual "
        "parameters (betared: theta and w)",
    )
    p.add_argument(
        "--objective",
        action="append",
        metavar="METRIC[:min|max]",
        help="a summary metric to minimise or maximise, averaged over a trial's runs "
        "(repeatable; default: delay_mean_ms:min and throughput_mbps:max)",
    )
    p.add_argument(
        "--trials", type=trial_count, default=40, metavar="N", help="trials (default 40)"
    )
    p.add_argument(
        "--batch",
        type=trial_count,
        default=8,
        metavar="N",
        help="trials sampled together and simulated in parallel, and NSGA-II's population "
        "(default 8); --trials is rounded up to whole batches",
    )
    p.add_argument(
        "--sampler",
        choices=("nsga2", "tpe"),
        default="nsga2",
        help="Optuna's sampler: nsga2 (default) or tpe",
    )
    p.add_argument(
        "--seed", type=_count, default=1, metavar="S", help="the sampler's seed (default 1)"
    )
    p.add_argument(
        "--rerun",
        type=_count,
        default=5,
        metavar="K",
        help="front points run again with seeds 1-5, with the default parameters (default 5; "
        "0: none)",
    )
    add_jobs_argument(p)
    add_backend_arguments(p)
    p.add_argument(
        "--out",
        metavar="DIR",
        help="output directory (default results/tune-<AQM>-<EXPERIMENT stem>[-quick]); a "
        "study there with the same settings is resumed",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace an earlier aqmlab result in the output folder, another study included "
        "(the same study is resumed)",
    )
    add_memory_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_tune)
