"""What every `aqmlab` command group shares: the one-line error (`CliError`), argument types,
the `--set` items, the default results folder and the `--overwrite` help."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..engine.memory import ENV_VAR, MemoryBudgetError, parse_size


def finite_float(text: str) -> float:
    """A finite number (no nan or inf)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"invalid number {text!r}: expected a finite number")
    return value


def float_list(text: str) -> list[float]:
    """A comma-separated list of finite numbers."""
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        values = []
    if not values or not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(
            f"invalid list {text!r}: expected finite numbers such as 0.05,0.1"
        )
    return values


def _positive_count(text: str, what: str) -> int:
    """`text` as an integer >= 1, else an error naming `what` it counts."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"invalid {what} {text!r}: expected an integer >= 1")
    return count


def job_count(text: str) -> int:
    """A positive number of worker processes."""
    return _positive_count(text, "job count")


def trial_count(text: str) -> int:
    """A positive number of trials (or of trials in a batch)."""
    return _positive_count(text, "trial count")


def memory_size(text: str) -> int:
    """A memory budget such as 8G or 512M (`aqmlab.engine.memory.parse_size`)."""
    try:
        return parse_size(text)
    except MemoryBudgetError:
        raise argparse.ArgumentTypeError(
            f"invalid size {text!r}: expected bytes or a number with K, M, G or T, such as 8G"
        ) from None


def add_memory_option(parser: argparse.ArgumentParser) -> None:
    """`--max-memory SIZE`: the memory budget of the command (`aqmlab.engine.memory`)."""
    parser.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help=f"memory a run or result may take, such as 8G (default: ${ENV_VAR}, else 4G); "
        "larger requests are refused before any work",
    )


RESULTS_DIR = Path("results")
"""Where commands write when no --out is given."""

OVERWRITE_HELP = "replace an earlier aqmlab result in the output folder"


class CliError(Exception):
    """A user mistake, reported as one line with exit status 2."""


def parse_set(item: str) -> tuple[str, str]:
    """Split a `--set key.path=value` argument at its first `=`."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep or not key:
        raise CliError(f"--set {item!r}: expected key.path=value")
    return key, value.strip()
