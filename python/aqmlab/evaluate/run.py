"""`aqmlab evaluate AQM [AQM ...]`: run RFC 7928's scenarios (`experiments/rfc7928/`) with
each AQM, resumable and parallel like `reproduce`, then write the report card: per-run
measures, rankings, figures and report.md (docs/evaluate.md)."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import data
from ..engine import aqm as aqm_registry
from ..engine.outdir import write_file
from ..engine.parquet import write_table
from ..engine.store import RunStore
from ..sweeps.experiment import Experiment, ExperimentError, RunSpec
from ..sweeps.grid import SweepOutcome, execute, load_table
from .card import draw_section
from .metrics import run_measures
from .ranking import rank
from .report import report_text
from .result import SectionResult
from .sensitivity import sensitivity_runs, with_changes
from .suite import Section, section_names, sections


@dataclass
class EvaluateOutcome:
    out_dir: Path
    report: Path
    results: list[SectionResult]
    sweep: SweepOutcome
    wall_s: float


BASELINE = "droptail"
"""The reference RFC 7928 §4.3 expects every AQM to be compared with: no AQM, a FIFO that
drops when full (the same buffer)."""


def with_baseline(aqms: Sequence[str], baseline: bool) -> list[str]:
    """`aqms` with drop tail appended when `baseline` and it is not among them."""
    return [*aqms, BASELINE] if baseline and BASELINE not in aqms else list(aqms)


def check_aqms(names: Sequence[str]) -> list[str]:
    """The AQM names, each known to the core and given once; else `ExperimentError`."""
    known = aqm_registry.names()
    for name in names:
        if name not in known:
            raise ExperimentError(f"AQM: unknown '{name}' (allowed: {', '.join(known)})")
    repeated = sorted({n for n in names if list(names).count(n) > 1})
    if repeated:
        raise ExperimentError(f"AQM: '{repeated[0]}' given twice")
    return list(names)


def check_sections(text: str | None) -> list[str] | None:
    """`--sections transport,ecn` as a list (None: every section); unknown names are errors."""
    if text is None:
        return None
    chosen = [t.strip() for t in text.split(",") if t.strip()]
    allowed = section_names()
    for name in chosen:
        if name not in allowed:
            raise ExperimentError(f"--sections: unknown '{name}' (allowed: {', '.join(allowed)})")
    if not chosen:
        raise ExperimentError(f"--sections: empty (allowed: {', '.join(allowed)})")
    return chosen


def section_experiment(section: Section, aqms: Sequence[str], quick: bool) -> Experiment:
    """The section's experiment file with its `aqm` axis set to `aqms`."""
    exp = Experiment.load(data.experiments("rfc7928") / f"{section.stem}.toml", quick=quick)
    axes = tuple(
        dataclasses.replace(a, values=tuple(aqms)) if a.name == "aqm" else a for a in exp.axes
    )
    if not any(a.name == "aqm" for a in exp.axes):
        raise ExperimentError(f"{exp.path.name}: needs an axis named 'aqm' over queue.aqm")
    return dataclasses.replace(exp, axes=axes)


def section_measures(specs: Sequence[RunSpec], store: RunStore) -> pd.DataFrame:
    """One row per stored run: the grid's columns and seed, then every report-card measure."""
    groups = _by_run(load_table(specs, store, "groups"))
    fct = _by_run(load_table(specs, store, "fct"))
    rows = []
    for spec in specs:
        if not store.has(spec.run_id):
            continue
        record = store.read(spec.run_id)
        traces = store.read_traces(spec.run_id) if store.has(spec.run_id, traces=True) else None
        measures = run_measures(record, traces, groups.get(spec.run_id), fct.get(spec.run_id))
        rows.append({"run_id": spec.run_id, **spec.params, **measures})
    return pd.DataFrame(rows)


def _by_run(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    if table.empty:
        return {}
    return {run_id: df for run_id, df in table.groupby("run_id")}


def evaluate(
    aqms: Sequence[str],
    out_dir: str | os.PathLike[str],
    quick: bool = False,
    chosen: Sequence[str] | None = None,
    jobs: int | None = None,
    progress: bool = True,
    overwrite: bool = False,
    backend: str = "local",
    address: str | None = None,
    max_memory: str | int | None = None,
    command: str = "aqmlab evaluate",
    baseline: bool = True,
) -> EvaluateOutcome:
    """Run the chosen sections (all by default) with `aqms`, and drop tail as the baseline
    unless `baseline` is false, into `out_dir` and write the report card there. Every
    scenario is checked before anything is written; finished runs are stored under
    `out_dir`/runs and reused when called again."""
    t0 = time.perf_counter()
    aqms = with_baseline(check_aqms(aqms), baseline)
    out_dir = Path(out_dir)
    results = [
        SectionResult(s, section_experiment(s, aqms, quick))
        for s in sections(list(chosen) if chosen else None)
    ]
    specs_of = {}
    for r in results:
        if r.section.stem == "sensitivity":
            specs_of[r.section.stem], r.refused = sensitivity_runs(r.experiment, aqms)
            r.keys = ["parameter", "factor"]
        else:
            specs_of[r.section.stem] = r.experiment.runs()
            r.keys = [a.name for a in r.experiment.axes if a.name != "aqm"]
    all_specs = [s for specs in specs_of.values() for s in specs]
    sweep = execute(
        all_specs,
        out_dir,
        jobs,
        progress,
        "rfc7928",
        backend,
        address,
        "evaluate",
        overwrite,
        max_memory,
    )
    store = RunStore(out_dir)
    for result in results:
        specs = specs_of[result.section.stem]
        result.measures = section_measures(specs, store)
        if result.section.stem == "sensitivity":
            result.measures = with_changes(result.measures)
        if result.measures.empty:
            continue
        result.ranking = rank(result.measures, result.section, aqms)
        write_table(result.measures, out_dir / "tables", result.section.stem)
        write_table(result.ranking, out_dir / "tables", f"{result.section.stem}_ranking")
        result.figures = [
            str(p) for p in draw_section(result, specs, store, out_dir / "figures", aqms)
        ]
    wall_s = time.perf_counter() - t0
    text = report_text(results, aqms, quick, command, sweep, wall_s)
    report = write_file(out_dir / "report.md", text)
    return EvaluateOutcome(out_dir, report, results, sweep, wall_s)
