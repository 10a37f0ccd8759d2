"""The `aqmlab` command: run, list, compare."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from tqdm import tqdm

from . import _core
from .compare import compare_table
from .runner import run
from .scenario import Scenario
from .tables import summary_table

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXPERIMENTS_DIR = Path("experiments")
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


class _ProgressBar:
    """A tqdm bar over simulated seconds on stderr (none when stderr is not a terminal),
    created on the first progress report."""

    def __init__(self) -> None:
        self._bar: tqdm | None = None

    def __call__(self, sim_time_s: float, duration_s: float) -> None:
        if self._bar is None:
            self._bar = tqdm(
                total=duration_s,
                desc="simulating",
                file=sys.stderr,
                disable=None,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s "
                "[{elapsed}<{remaining}]",
            )
        self._bar.update(max(0.0, sim_time_s - self._bar.n))

    def close(self, completed: bool) -> None:
        """Close the bar, first filling it to the end if the run completed."""
        if self._bar is not None:
            if completed:
                self._bar.update(max(0.0, self._bar.total - self._bar.n))
            self._bar.close()


def _cmd_run(args: argparse.Namespace) -> int:
    sets = [_parse_set(item) for item in args.set]
    path = Path(args.file)
    try:
        scenario = Scenario.load(path)
    except OSError as e:
        raise CliError(f"cannot read scenario file '{path}': {e.strerror or e}") from None
    scenario = scenario.with_literals(sets)
    out_dir = Path(args.out) if args.out is not None else RESULTS_DIR / path.stem

    bar = _ProgressBar()
    completed = False
    try:
        result = run(scenario, seed=args.seed, progress=None if args.quiet else bar)
        completed = True
    finally:
        bar.close(completed)
    try:
        result.write(out_dir, csv=args.csv)
    except OSError as e:
        raise CliError(f"cannot write results to '{out_dir}': {e.strerror or e}") from None
    print(summary_table(result.summary_dict))
    print(f"\nresults: {out_dir}")
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    for key, names in _core.catalog().items():
        print(f"{key.replace('_', ' ')}: {', '.join(names)}")
    scenarios = sorted(EXPERIMENTS_DIR.rglob("*.toml")) if EXPERIMENTS_DIR.is_dir() else []
    print(f"\nscenarios under {EXPERIMENTS_DIR}/:" if scenarios else "\nscenarios: none found")
    for path in scenarios:
        print(f"  {path.as_posix()}")
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    try:
        print(compare_table(args.dirs))
    except OSError as e:
        raise CliError(f"cannot read '{e.filename}': {e.strerror or e}") from None
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise CliError(f"not a valid summary.json among {args.dirs}: {e}") from None
    return 0


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
    p_run.add_argument("--quiet", action="store_true", help="no progress bar")
    p_run.set_defaults(func=_cmd_run)

    p_list = commands.add_parser("list", help="list AQMs, presets and scenario files")
    p_list.set_defaults(func=_cmd_list)

    p_compare = commands.add_parser(
        "compare", help="compare the BetaRED paper's five metrics across result directories"
    )
    p_compare.add_argument("dirs", nargs="+", metavar="DIR", help="result directory")
    p_compare.set_defaults(func=_cmd_compare)
    return parser


def _one_line(message: object) -> str:
    """The message with its lines joined, so an error is always one line."""
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except (CliError, _core.ScenarioError) as e:
        print(f"aqmlab: error: {_one_line(e)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("aqmlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    raise SystemExit(main())
