"""Side-by-side table of the BetaRED paper's five metrics for finished runs."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine.result import SUMMARY_JSON
from ..engine.tables import PAPER_METRICS, format_metric, render_table


class CompareError(ValueError):
    """A folder that holds no readable run summary; the message is one line naming it."""


def load_summary(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The summary metrics stored in `<run_dir>/summary.json`; `CompareError` when the folder
    holds no readable aqmlab run summary."""
    path = Path(run_dir) / SUMMARY_JSON
    if not Path(run_dir).is_dir():
        raise CompareError(f"{run_dir}: no such result folder (an `aqmlab run` output folder)")
    try:
        summary = json.loads(path.read_bytes().decode("utf-8"))["summary"]
    except OSError as e:
        raise CompareError(f"cannot read '{path}': {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise CompareError(f"{path}: not a UTF-8 text file") from None
    except (ValueError, KeyError, TypeError):
        raise CompareError(f"{path}: not a summary.json written by aqmlab run") from None
    if not isinstance(summary, dict):
        raise CompareError(f"{path}: not a summary.json written by aqmlab run")
    return summary


def compare_table(run_dirs: Sequence[str | os.PathLike[str]]) -> str:
    """One row per run directory: its AQM and the five paper metrics."""
    headers = ["run", "aqm", *(m.label for m in PAPER_METRICS)]
    rows = []
    for run_dir in run_dirs:
        summary = load_summary(run_dir)
        row = [os.fspath(run_dir), str(summary.get("aqm", "n/a"))]
        rows.append(row + [format_metric(summary, m) for m in PAPER_METRICS])
    return render_table(headers, rows, text_columns=2)
