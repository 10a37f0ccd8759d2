"""Argument types shared by the `aqmlab` subcommands."""

from __future__ import annotations

import argparse


def float_list(text: str) -> list[float]:
    """A comma-separated list of numbers."""
    try:
        values = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        values = []
    if not values:
        raise argparse.ArgumentTypeError(
            f"invalid list {text!r}: expected numbers such as 0.05,0.1"
        )
    return values
