"""Side-by-side table of the BetaRED paper's five metrics for finished runs."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .result import SUMMARY_JSON
from .tables import PAPER_METRICS, format_metric, render_table


def load_summary(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The summary metrics stored in `<run_dir>/summary.json`."""
    path = Path(run_dir) / SUMMARY_JSON
    with open(path, encoding="utf-8") as f:
        return json.load(f)["summary"]


def compare_table(run_dirs: Sequence[str | os.PathLike[str]]) -> str:
    """One row per run directory: its AQM and the five paper metrics."""
    headers = ["run", "aqm", *(m.label for m in PAPER_METRICS)]
    rows = []
    for run_dir in run_dirs:
        summary = load_summary(run_dir)
        row = [os.fspath(run_dir), str(summary.get("aqm", "n/a"))]
        rows.append(row + [format_metric(summary, m) for m in PAPER_METRICS])
    return render_table(headers, rows, text_columns=2)
