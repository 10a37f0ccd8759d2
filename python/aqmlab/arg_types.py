"""Argument types shared by the `aqmlab` subcommands."""

from __future__ import annotations

import argparse
import math


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


def job_count(text: str) -> int:
    """A positive number of worker processes."""
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"invalid job count {text!r}: expected an integer >= 1")
    return jobs
