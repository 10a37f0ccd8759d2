"""`aqmlab sweep` and `aqmlab reproduce`: an experiment's grid, and a paper's figures with
verdicts, on local workers or a Ray cluster, resumable."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.outdir import check_target
from ..engine.tables import format_number, render_table
from ..sweeps.usage import BACKENDS
from .arg_types import RESULTS_DIR, add_memory_option, job_count

if TYPE_CHECKING:
    from ..sweeps.experiment import Experiment
    from ..sweeps.grid import SweepOutcome


def _sweep_summary(experiment: Experiment, df) -> str:
    """Mean over seeds of the plotted metrics at each grid point, as a text table."""
    from ..present.plots import metric_label, seed_means

    keys = [a.name for a in experiment.axes]
    metrics = [m for m in experiment.plot.y if m in df.columns]
    means = seed_means(df, keys, metrics)
    headers = keys + [metric_label(m)[0] for m in metrics]
    rows = []
    for _, r in means.iterrows():
        cells = [str(r[k]) for k in keys]
        cells += [format_number(r[m], metric_label(m)[1], 3) for m in metrics]
        rows.append(cells)
    return render_table(headers, rows, text_columns=len(keys))


def _cmd_sweep(args: argparse.Namespace) -> int:
    from ..engine.parquet import write_table
    from ..engine.store import RunStore
    from ..present.plots import plot_experiment
    from ..sweeps.experiment import Experiment
    from ..sweeps.grid import execute, load_point_traces, load_tables, load_traces, table

    path = Path(args.file)
    experiment = Experiment.load(path, quick=args.quick)
    specs = experiment.runs()  # validates every grid point before anything is written
    suffix = "-quick" if args.quick else ""
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / f"{path.stem}{suffix}"
    outcome = execute(  # bad input: nothing written
        specs,
        out_dir,
        args.jobs,
        not args.quiet,
        path.stem,
        args.backend,
        args.address,
        "sweep",
        args.overwrite,
        args.max_memory,
    )
    store = RunStore(out_dir)
    df = table(experiment, specs, store)
    if not df.empty:
        write_table(df, out_dir, "results")
        tables = load_tables(experiment, specs, store)
        for name, kept in tables.items():
            write_table(kept, out_dir, name)
        traces = None
        if experiment.plot.kind == "traces":
            traces = load_traces(experiment, specs, store)
        elif experiment.plot.kind == "coexistence":
            traces = load_point_traces(specs, store)
        plot_experiment(experiment, df, out_dir, path.stem, traces, tables)
        print(_sweep_summary(experiment, df))
    return report_runs(outcome, f"results: {out_dir}")


def report_runs(outcome: SweepOutcome, last_line: str, wall_s: float | None = None) -> int:
    """Print what a command's runs did (counts, wall time, default `outcome.wall_s`, and CPU
    time) and `last_line`; one stderr line per run run again or failed. Returns the exit
    status: 1 when a run failed, else 0."""
    wall_s = outcome.wall_s if wall_s is None else wall_s
    print(
        f"\n{outcome.total} runs: {outcome.ran} simulated, {outcome.skipped} reused, "
        f"{len(outcome.failed)} failed{_retried_note(outcome)} ({wall_s:.1f} s wall, "
        f"{outcome.cpu_s:.1f} s CPU in simulations)\n{last_line}"
    )
    _report_retried(outcome)
    for run_id, message in outcome.failed:
        print(f"aqmlab: run {run_id} failed: {message}", file=sys.stderr)
    return 1 if outcome.failed else 0


def _retried_note(outcome) -> str:
    return f", {len(outcome.retried)} run again after an error" if outcome.retried else ""


def _report_retried(outcome) -> None:
    """One stderr line per run that failed and was run again, with its first error."""
    for run_id, message in outcome.retried:
        print(f"aqmlab: run {run_id} failed and was run again: {message}", file=sys.stderr)


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from ..papers import catalog
    from ..papers.report import verdict_text
    from ..papers.reproduce import parse_parts, reproduce

    paper = catalog.paper(args.paper)
    chosen = {"figure": args.figures, "table": args.tables}
    parts = [
        part
        for noun, text in chosen.items()
        if text is not None
        for part in parse_parts(text, paper, noun)
    ]
    suffix = "-quick" if args.quick else ""
    out_dir = (
        Path(args.out) if args.out is not None else RESULTS_DIR / f"reproduce-{args.paper}{suffix}"
    )
    check_target(out_dir, "reproduce", args.overwrite)
    command = f"aqmlab reproduce {args.paper}" + (" --quick" if args.quick else "")
    for noun, text in chosen.items():
        if text is not None:
            command += f" --{noun}s " + ",".join(str(n) for k, n in parts if k == noun)
    outcome = reproduce(
        args.paper,
        out_dir,
        quick=args.quick,
        jobs=args.jobs,
        parts=parts or None,
        progress=not args.quiet,
        command=command,
        overwrite=args.overwrite,
        backend=args.backend,
        address=args.address,
        max_memory=args.max_memory,
    )
    print(verdict_text(outcome.claims))
    print(
        f"\n{outcome.sweep.total} runs: {outcome.sweep.ran} simulated, "
        f"{outcome.sweep.skipped} reused{_retried_note(outcome.sweep)} "
        f"({outcome.wall_s:.0f} s wall, {outcome.sweep.cpu_s:.0f} s CPU in simulations)"
        f"\nreport: {outcome.report}"
    )
    _report_retried(outcome.sweep)
    for problem in outcome.problems:
        print(f"aqmlab: {problem}", file=sys.stderr)
    return 0 if outcome.ok else 1


RESUME_HELP = (
    "replace an earlier aqmlab result of another kind in the output folder "
    "(an earlier result of the same command is resumed)"
)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where the runs are simulated: local worker processes (default) or a Ray "
        "cluster (needs pip install 'aqmlab[ray]'; see docs/scaling.md)",
    )
    parser.add_argument(
        "--address",
        metavar="ADDRESS",
        help="with --backend ray: auto (the cluster this machine joined with `ray start`) or "
        "HOST:PORT of the head node; default: a Ray instance on this machine for this command",
    )


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    """`--jobs N`: how many runs a command simulates at once."""
    parser.add_argument(
        "--jobs",
        type=job_count,
        help=f"worker processes (default: the number of CPUs, {os.cpu_count()}); with "
        "--backend ray, runs at a time (default: the cluster's CPUs)",
    )


def add_output_arguments(parser: argparse.ArgumentParser, default_out: str) -> None:
    """`--out DIR` (`default_out` said in its help), `--overwrite`, the memory cap and
    `--quiet`: where a resumable command writes, and how it reports."""
    parser.add_argument(
        "--out", metavar="DIR", help=f"output directory (default {RESULTS_DIR}/{default_out})"
    )
    parser.add_argument("--overwrite", action="store_true", help=RESUME_HELP)
    add_memory_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def add_parsers(commands: Any) -> None:
    """Add `sweep` and `reproduce` to the `aqmlab` parser's subcommands."""
    p_sweep = commands.add_parser(
        "sweep", help="run an experiment's grid (resumable) and write its table and figure"
    )
    p_sweep.add_argument("file", metavar="EXPERIMENT", help="experiment TOML file")
    p_sweep.add_argument("--quick", action="store_true", help="use the file's [quick] grid")
    add_jobs_argument(p_sweep)
    add_backend_arguments(p_sweep)
    add_output_arguments(p_sweep, "<EXPERIMENT stem>[-quick]")
    p_sweep.set_defaults(func=_cmd_sweep)

    p_repro = commands.add_parser(
        "reproduce", help="run every figure of a paper and write a report with verdicts"
    )
    p_repro.add_argument("paper", metavar="PAPER", help="the paper: betared, li2014 or chen2011")
    p_repro.add_argument(
        "--quick", action="store_true", help="reduced grids and shorter runs (a few minutes)"
    )
    add_jobs_argument(p_repro)
    add_backend_arguments(p_repro)
    p_repro.add_argument(
        "--figures", metavar="LIST", help="only these figures, e.g. 3,8 (betared), 5,7 (chen2011)"
    )
    p_repro.add_argument(
        "--tables", metavar="LIST", help="only these tables, e.g. 1,2 (li2014), 1 (chen2011)"
    )
    add_output_arguments(p_repro, "reproduce-<PAPER>[-quick]")
    p_repro.set_defaults(func=_cmd_reproduce)
