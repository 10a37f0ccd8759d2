"""`aqmlab run`, `list`, `compare` and `curves`: one scenario and its results, what aqmlab has,
finished runs side by side, and BetaRED's drop curves."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import _core, data
from ..engine.outdir import check_target, staged
from ..engine.result import run_files
from ..engine.runner import run
from ..engine.scenario import Scenario
from ..engine.tables import (
    fct_table,
    groups_table,
    ports_table,
    render_table,
    summary_table,
)
from ..sweeps.progress import Progress
from ..sweeps.usage import experiment_not_scenario, is_experiment_file, is_experiment_text
from .arg_types import (
    OVERWRITE_HELP,
    RESULTS_DIR,
    CliError,
    add_memory_option,
    finite_float,
    float_list,
    parse_set,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_CURVES = 50
"""Most θ values `aqmlab curves` draws in one figure."""


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


def _seed(text: str) -> int:
    """A non-negative integer seed."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if not 0 <= seed < 2**64:
        raise argparse.ArgumentTypeError(f"invalid seed {text!r}: expected an integer in 0..2^64-1")
    return seed


def _cmd_run(args: argparse.Namespace) -> int:
    sets = [parse_set(item) for item in args.set]
    path = Path(args.file)
    try:
        scenario = Scenario.load(path)
    except OSError as e:
        raise CliError(f"cannot read scenario file '{path}': {e.strerror or e}") from None
    if is_experiment_text(scenario.text):
        raise CliError(experiment_not_scenario(path, "run"))
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
        from ..engine import aqm

        chosen = [args.params] if args.params else aqm.names()
        print("\n\n".join(aqm.params_text(name) for name in chosen))
        return 0
    catalog = _core.catalog()
    titles = catalog.pop("aqm_titles")
    width = max(len(name) for name in catalog["aqms"])
    print("aqms (aqmlab list --params AQM for the parameters):")
    for name in catalog.pop("aqms"):
        print(f"  {name:<{width}}  {titles[name]}")
    sources = catalog.pop("cc_sources")
    width = max(len(name) for name in sources)
    print("congestion controls (tcp.cc):")
    for name in catalog.pop("congestion_controls"):
        print(f"  {name:<{width}}  {sources[name]}")
    multi_queue = catalog.pop("flow_queueing")
    print(f"multi-queue (simulated ports only): {', '.join(multi_queue)}")
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
    from ..present.compare import CompareError, compare_table

    try:
        print(compare_table(args.dirs))
    except CompareError as e:
        raise CliError(str(e)) from None
    return 0


def _cmd_curves(args: argparse.Namespace) -> int:
    import numpy as np

    from ..present.curves import curves_table, plot_curves

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


def add_parsers(commands: Any) -> None:
    """Add `run`, `list`, `compare` and `curves` to the `aqmlab` parser's subcommands."""
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
