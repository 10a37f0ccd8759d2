"""What every experiment figure shares: the AQMs' titles, how axis values are shown, the note
that says what a quick run reduced, and saving a figure as PNG and SVG into a result folder
(matplotlib, Agg)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import _core  # noqa: E402
from ..engine.outdir import write_file  # noqa: E402
from ..sweeps.experiment import Experiment, ExperimentError, format_value  # noqa: E402

AQM_NAMES: dict[str, str] = _core.catalog()["aqm_titles"]
"""Each AQM's title in legends and captions, from the AQM registry."""

SAVE_OPTIONS = {
    ".png": {"dpi": 110, "metadata": {"Software": None}},
    ".svg": {"metadata": {"Date": None, "Creator": None}},
}


def display(value: Any) -> str:
    """How a line or panel value is shown: AQM names capitalised as in the paper."""
    if isinstance(value, str) and value in AQM_NAMES:
        return AQM_NAMES[value]
    return format_value(value)


def save_figure(fig, out_dir: Path, stem: str) -> list[Path]:
    """Save `fig` as `<stem>.png` and `<stem>.svg` in `out_dir`, a folder of an aqmlab result
    (each file listed and written atomically: `aqmlab.engine.outdir.write_file`)."""
    paths = []
    with plt.rc_context({"svg.hashsalt": "aqmlab"}):
        for suffix, options in SAVE_OPTIONS.items():
            fmt = suffix[1:]
            paths.append(
                write_file(
                    Path(out_dir) / f"{stem}{suffix}",
                    lambda tmp, fmt=fmt, options=options: fig.savefig(tmp, format=fmt, **options),
                )
            )
    plt.close(fig)
    return paths


def quick_note(experiment: Experiment) -> str:
    """For a figure title: what the experiment's quick variant reduced (its axes, seeds and
    changed settings, measured against the full file), or "" for a full run."""
    if not experiment.quick:
        return ""
    try:
        full = Experiment.load(experiment.path)
    except ExperimentError:
        return "quick run: the experiment file's [quick] settings"
    grid = []
    for axis in experiment.axes:
        whole = full.axis(axis.name)
        if whole is not None and len(axis.values) < len(whole.values):
            grid.append(
                f"{len(axis.values)} of {len(whole.values)} {axis.label or axis.name} values"
            )
    parts = list(grid)
    if len(experiment.seeds) < len(full.seeds):
        parts.append(f"{len(experiment.seeds)} of {len(full.seeds)} seeds")
    before = dict(full.fixed)
    parts += [
        f"{key} = {format_value(value)}"
        for key, value in experiment.fixed
        if key not in before or before[key] != value
    ]
    head = "quick run, reduced grid" if grid else "quick run"
    return f"{head}: {', '.join(parts)}" if parts else head
