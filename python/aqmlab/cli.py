"""The `aqmlab` command: run, list, compare, sweep, reproduce, curves, show, plot, model."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from . import _core, data
from .arg_types import add_memory_option, finite_float, float_list, job_count
from .cli_inspect import add_parser as add_inspect_parser
from .experiment import Experiment, ExperimentError, is_experiment_file, is_experiment_text
from .interrupt import Interrupted, handle_sigterm
from .memory import MemoryBudgetError
from .model_cli import add_parser as add_model_parser
from .outdir import OutputError, check_target, staged
from .progress import Progress
from .result import run_files
from .runner import run
from .scenario import Scenario
from .sweeps import BACKENDS, BackendError
from .tables import (
    fct_table,
    format_number,
    groups_table,
    ports_table,
    render_table,
    summary_table,
)
from .validate_cli import add_parser as add_validate_parser

EXIT_USAGE = 2
MAX_CURVES = 50
"""Most θ values `aqmlab curves` draws in one figure."""
RESULTS_DIR = Path("results")


class CliError(Exception):
    """A user mistake, reported as one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become `CliError` (one line, no usage dump)."""

    def error(self, message: str):  # type: ignore[override]
        raise CliError(message)


def _parse_set(item: str) -> tuple[str, str]:
    """Split a `--set key.path=value` argument at its first `=`."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise CliError(f"--set {item!r}: expected key.path=value")
    return key, value.strip()


def _seed(text: str) -> int:
    """A non-negative integer seed."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**64:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer in 0..2^64-1")
    return seed


class _RunProgress:
    """Progress over simulated seconds, created on the first report of the core."""

    def __init__(self) -> None:
        self._progress: Progress | None = None

    def __call__(self, sim_time_s: float, duration_s: float) -> None:
        if self._progress is None:
            self._progress = Progress(duration_s, "simulating", "s simulated")
        self._progress.update_to(sim_time_s)

    def close(self, completed: bool) -> None:
        """End the progress report, first filling it if the run completed."""
        if self._progress is not None:
            if completed:
                self._progress.update_to(self._progress.total)
            self._progress.close()


def _cmd_run(args: argparse.Namespace) -> int:
    sets = [_parse_set(item) for item in args.set]
    path = Path(args.file)
    try:
        scenario = Scenario.load(path)
    except OSError as e:
        raise CliError(f"cannot read scenario file '{path}': {e.strerror or e}") from None
    if is_experiment_text(scenario.text):
        raise CliError(
            f"{path}: an experiment file, not a scenario (it names a base `scenario` and a "
            f"grid); run it with `aqmlab sweep {path}`"
        )
    scenario = scenario.with_literals(sets)
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / path.stem
    check_target(out_dir, "run", args.overwrite, files=run_files(args.csv))
    scenario.resolved()  # every key checked before the run starts

    bar = _RunProgress()
    completed = False
    try:
        result = run(
            scenario,
            seed=args.seed,
            progress=None if args.quiet else bar,
            max_memory=args.max_memory,
        )
        completed = True
    finally:
        bar.close(completed)
    try:
        result.write(out_dir, csv=args.csv, overwrite=args.overwrite)
    except OSError as e:
        raise CliError(f"cannot write results to '{out_dir}': {e.strerror or e}") from None
    print(summary_table(result.summary_dict))
    if result.rows("ports") > 1:
        print("\nper port:\n" + ports_table(result.records("ports")))
    if result.rows("groups") > 1:
        print("\nper group:\n" + groups_table(result.records("groups")))
    if result.rows("fct"):
        print("\nflow completion times:\n" + fct_table(result.records("fct")))
    print(f"\nresults: {out_dir}")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    if args.params is not None:
        from . import aqm

        chosen = [args.params] if args.params else aqm.names()
        print("\n\n".join(aqm.params_text(name) for name in chosen))
        return 0
    catalog = _core.catalog()
    titles = catalog.pop("aqm_titles")
    width = max(len(name) for name in catalog["aqms"])
    print("aqms (aqmlab list --params AQM for the parameters):")
    for name in catalog.pop("aqms"):
        print(f"  {name:<{width}}  {titles[name]}")
    for key, names in catalog.items():
        print(f"{key.replace('_', ' ')}: {', '.join(names)}")
    names = data.builtin_names()
    experiments = [n for n in names if is_experiment_file(data.resolve(n))]
    scenarios = [n for n in names if n not in experiments]
    print(f"\nbuilt-in scenarios (aqmlab run NAME; the files are in {data.EXPERIMENTS}):")
    for name in scenarios:
        print(f"  {name}")
    print("\nbuilt-in experiments (aqmlab sweep NAME):")
    for name in experiments:
        print(f"  {name}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from .compare import CompareError, compare_table

    try:
        print(compare_table(args.dirs))
    except CompareError as e:
        raise CliError(str(e)) from None
    return 0


def _sweep_summary(experiment: Experiment, df) -> str:
    """Mean over seeds of the plotted metrics at each grid point, as a text table."""
    from .plots import metric_label, seed_means

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
    from .plots import plot_experiment
    from .store import RunStore
    from .sweeps import execute, load_traces, table, write_table

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
        traces = load_traces(experiment, specs, store) if experiment.plot.kind == "traces" else None
        plot_experiment(experiment, df, out_dir, path.stem, traces)
        print(_sweep_summary(experiment, df))
    print(
        f"\n{outcome.total} runs: {outcome.ran} simulated, {outcome.skipped} reused, "
        f"{len(outcome.failed)} failed{_retried_note(outcome)} ({outcome.wall_s:.1f} s wall, "
        f"{outcome.cpu_s:.1f} s CPU in simulations)\nresults: {out_dir}"
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
    from .report import verdict_text
    from .reproduce import PAPERS, parse_parts, reproduce

    paper = PAPERS.get(args.paper)
    if paper is None:
        raise CliError(f"unknown paper '{args.paper}' (available: {', '.join(PAPERS)})")
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


def _cmd_curves(args: argparse.Namespace) -> int:
    import numpy as np

    from .curves import curves_table, plot_curves

    if len(args.theta) > MAX_CURVES:
        raise CliError(
            f"--theta: {len(args.theta)} values; at most {MAX_CURVES} curves fit in one figure"
        )
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / "curves"
    check_target(out_dir, "curves", args.overwrite)
    try:
        df = curves_table(
            args.theta,
            q_min=args.q_min,
            q_max=args.q_max,
            q_target=args.q_target,
            p_max=args.p_max,
            red=not args.no_red,
            limit_pkts=args.limit,
        )
    except RuntimeError as e:
        raise CliError(str(e)) from None
    with staged(out_dir, "curves", args.overwrite) as tmp:
        plot_curves(df, tmp, args.q_target)
        df.to_csv(tmp / "curves.csv", index=False, lineterminator="\n")
    probes = [args.q_target * f for f in (0.6, 0.8, 1.0, 1.2, 1.4)]
    headers = ["curve"] + [f"p(q_avg={q:g})" for q in probes]
    rows = []
    for (name, theta), sub in df.groupby(["aqm", "theta"], dropna=False, sort=False):
        label = "RED" if name == "red" else f"BetaRED θ={theta:g}"
        p = np.interp(probes, sub["q_avg_pkts"], sub["p"])
        rows.append([label] + [f"{v:.3f}" for v in p])
    print(render_table(headers, rows))
    print(f"\ncurves: {out_dir}/curves.png, curves.svg, curves.csv")
    return 0


OVERWRITE_HELP = "replace an earlier aqmlab result in the output folder"
RESUME_HELP = (
    "replace an earlier aqmlab result of another kind in the output folder "
    "(an earlier result of the same command is resumed)"
)


def _add_backend_arguments(parser: argparse.ArgumentParser) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `aqmlab` command."""
    parser = _Parser(prog="aqmlab", description="Packet-level TCP/AQM network simulator.")
    parser.add_argument("--version", action="version", version=f"aqmlab {_core.version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p_run = commands.add_parser("run", help="run one scenario and write its results")
    p_run.add_argument("file", metavar="FILE", help="scenario TOML file")
    p_run.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key, e.g. --set queue.aqm=red (repeatable)",
    )
    p_run.add_argument(
        "--out", metavar="DIR", help=f"output directory (default {RESULTS_DIR}/<FILE stem>)"
    )
    p_run.add_argument("--seed", type=_seed, help="seed (default: the scenario's seed key)")
    p_run.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p_run.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    add_memory_option(p_run)
    p_run.add_argument("--quiet", action="store_true", help="no progress bar")
    p_run.set_defaults(func=_cmd_run)

    p_list = commands.add_parser("list", help="list AQMs, presets and scenario files")
    p_list.add_argument(
        "--params",
        nargs="?",
        const="",
        metavar="AQM",
        help="list the parameters of AQM (every AQM when none is named) with units, "
        "defaults, allowed values and help",
    )
    p_list.set_defaults(func=_cmd_list)

    p_compare = commands.add_parser(
        "compare", help="compare the BetaRED paper's five metrics across result directories"
    )
    p_compare.add_argument("dirs", nargs="+", metavar="DIR", help="result directory")
    p_compare.set_defaults(func=_cmd_compare)

    jobs_help = (
        f"worker processes (default: the number of CPUs, {os.cpu_count()}); with --backend ray, "
        "runs at a time (default: the cluster's CPUs)"
    )
    p_sweep = commands.add_parser(
        "sweep", help="run an experiment's grid (resumable) and write its table and figure"
    )
    p_sweep.add_argument("file", metavar="EXPERIMENT", help="experiment TOML file")
    p_sweep.add_argument("--quick", action="store_true", help="use the file's [quick] grid")
    p_sweep.add_argument("--jobs", type=job_count, help=jobs_help)
    _add_backend_arguments(p_sweep)
    p_sweep.add_argument(
        "--out",
        metavar="DIR",
        help=f"output directory (default {RESULTS_DIR}/<EXPERIMENT stem>[-quick])",
    )
    p_sweep.add_argument("--overwrite", action="store_true", help=RESUME_HELP)
    add_memory_option(p_sweep)
    p_sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    p_sweep.set_defaults(func=_cmd_sweep)

    p_repro = commands.add_parser(
        "reproduce", help="run every figure of a paper and write a report with verdicts"
    )
    p_repro.add_argument("paper", metavar="PAPER", help="the paper: betared, li2014 or chen2011")
    p_repro.add_argument(
        "--quick", action="store_true", help="reduced grids and shorter runs (a few minutes)"
    )
    p_repro.add_argument("--jobs", type=job_count, help=jobs_help)
    _add_backend_arguments(p_repro)
    p_repro.add_argument(
        "--out",
        metavar="DIR",
        help=f"output directory (default {RESULTS_DIR}/reproduce-<PAPER>[-quick])",
    )
    p_repro.add_argument(
        "--figures", metavar="LIST", help="only these figures, e.g. 3,8 (betared), 5,7 (chen2011)"
    )
    p_repro.add_argument(
        "--tables", metavar="LIST", help="only these tables, e.g. 1,2 (li2014), 1 (chen2011)"
    )
    p_repro.add_argument("--overwrite", action="store_true", help=RESUME_HELP)
    add_memory_option(p_repro)
    p_repro.add_argument("--quiet", action="store_true", help="no progress bar")
    p_repro.set_defaults(func=_cmd_reproduce)

    p_curves = commands.add_parser(
        "curves", help="plot BetaRED drop-probability curves for several θ (paper's Fig. 2)"
    )
    p_curves.add_argument(
        "--theta",
        type=float_list,
        default=[0.05, 0.1, 0.2, 0.3, 0.5],
        metavar="LIST",
        help="θ values, comma-separated (default 0.05,0.1,0.2,0.3,0.5)",
    )
    p_curves.add_argument(
        "--q-min", type=finite_float, default=0.0, help="q_min, packets (default 0)"
    )
    p_curves.add_argument(
        "--q-max", type=finite_float, default=1000.0, help="q_max, packets (default 1000)"
    )
    p_curves.add_argument(
        "--q-target", type=finite_float, default=250.0, help="q_target, packets (default 250)"
    )
    p_curves.add_argument("--p-max", type=finite_float, default=1.0, help="p_max (default 1)")
    p_curves.add_argument(
        "--limit", type=int, default=1000, help="buffer size B, packets: the x range (default 1000)"
    )
    p_curves.add_argument("--no-red", action="store_true", help="leave out the RED curve")
    p_curves.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    p_curves.add_argument(
        "--out", metavar="DIR", help=f"output directory (default {RESULTS_DIR}/curves)"
    )
    p_curves.set_defaults(func=_cmd_curves)
    add_model_parser(commands, CliError)
    add_validate_parser(commands, CliError)
    add_inspect_parser(commands, CliError)
    return parser


def _one_line(message: object) -> str:
    """The message with its lines joined, so an error is always one line."""
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


PATH_ARGUMENTS = {"file": "FILE", "out": "--out", "run_dir": "RUN_DIR", "dirs": "DIR"}
"""The arguments of any command that name a file or folder, as the messages call them."""

EXIT_BROKEN_PIPE = 128 + 13
"""The status of a command whose reader went away (`aqmlab run ... | head`), as SIGPIPE's."""


def _check_paths(args: argparse.Namespace) -> None:
    """No file or folder argument is empty (an empty path would mean the current folder)."""
    for attr, name in PATH_ARGUMENTS.items():
        value = getattr(args, attr, None)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and not str(item).strip():
                raise CliError(f"{name}: empty path; give a file or folder name")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        handle_sigterm()
        args = build_parser().parse_args(argv)
        _check_paths(args)
        return args.func(args)
    except (
        BackendError,
        CliError,
        ExperimentError,
        MemoryBudgetError,
        OutputError,
        _core.ScenarioError,
    ) as e:
        print(f"aqmlab: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # The reader of stdout is gone: say nothing more, and let Python's exit not fail
        # flushing it either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt as e:
        interrupted = e if isinstance(e, Interrupted) else Interrupted()
        detail = f": {interrupted.detail}" if interrupted.detail else ""
        print(f"aqmlab: interrupted{detail}", file=sys.stderr)
        return interrupted.exit_status


if __name__ == "__main__":
    raise SystemExit(main())
