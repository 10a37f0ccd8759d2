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
