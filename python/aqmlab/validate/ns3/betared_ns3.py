"""The BetaRED paper's Figs. 8 and 9 rerun in ns-3.37 (`aqmlab validate ns3 --betared`), the
simulator the paper used: ABetaRED and DBetaRED inside ns-3 through the bridge
(AqmlabQueueDisc, docs/ns3.md), ARED, CoDel and PIE as ns-3's own queue discs. The same points
(`experiments/betared/fig8.toml`, `fig9.toml`, full or quick) also run in aqmlab, and both
simulators' tables are judged by the reproduction's own criteria (`papers.betared.claims`), so
that each of the three claims these figures carry (fig8, conclusion, fig9) gets a verdict from
each simulator."""

from __future__ import annotations

import hashlib
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ...data import EXPERIMENTS
from ...engine.outdir import write_file
from ...engine.store import RunStore
from ...papers.betared import claims as betared_claims
from ...papers.claims import Claim
from ...sweeps.experiment import Experiment, RunSpec
from .. import common
from ..common import Job, Outcome, ValidationError
from .bridge import Programs
from .suite import METRICS, args_of, parse_ns3_output

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

FIGURES = ("fig8", "fig9")
CLAIMS = ("fig8", "conclusion", "fig9")
BRIDGED = ("abetared", "dbetared")
"""The AQMs ns-3 lacks, run inside it through the bridge; the others are ns-3's own."""
SIDES = ("ns3", "aqmlab")
KEYS = (*METRICS, "jitter_ms")
"""The summary values kept: the ordinary validation's metrics and the jitter, Fig. 8's fifth."""
REPORT = "report.md"
TIMEOUT_S = 6 * 3600.0


@dataclass(frozen=True)
class Point:
    """One run of a figure: the experiment's resolved scenario, seed and grid values."""

    figure: str
    spec: RunSpec

    @property
    def aqm(self) -> str:
        return str(self.spec.params["aqm"])

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.spec.params.items())


def points(quick: bool) -> list[Point]:
    """Every run of Figs. 8 and 9 (their quick grids with `quick`), in file order."""
    return [
        Point(figure, spec)
        for figure in FIGURES
        for spec in Experiment.load(EXPERIMENTS / "betared" / f"{figure}.toml", quick).runs()
    ]


def ns3_args(point: Point) -> list[str]:
    sc = tomllib.loads(point.spec.scenario_text)
    return args_of(sc, point.spec.seed, bridge=point.aqm in BRIDGED)


def run_id(point: Point, side: str, progs: Programs) -> str:
    """`betared-<scenario and seed digest>-<side>-<inputs digest>`: a point that two figures
    share (Fig. 9's runs are Fig. 8's at N_max = 800) is one run; the inputs are the program
    build and its arguments for ns-3, aqmlab's build for aqmlab."""
    if side == "ns3":
        prog = progs.bridge if point.aqm in BRIDGED else progs.native
        key = f"ns-3 program {prog.digest}\n" + " ".join(ns3_args(point))
    else:
        key = common.aqmlab_build()
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return f"betared-{point.spec.run_id}-{side}-{digest}"


def _jobs(pts: Sequence[Point], progs: Programs) -> list[Job]:
    """One job per distinct run and side: ns-3 first, the most flows first."""
    seen: dict[str, Point] = {}
    for p in pts:
        seen.setdefault(p.spec.run_id, p)
    unique = sorted(seen.values(), key=lambda p: -int(p.spec.params.get("N_max", 800)))
    return [(p, p.spec.seed, side) for side in SIDES for p in unique]


def execute(
    out: Path,
    pts: Sequence[Point],
    jobs: int,
    progs: Programs,
    on_done: Callable[[str, float], None] | None = None,
) -> Outcome:
    """Run the missing runs on `jobs` threads and store each one as it finishes."""

    def do(job: Job) -> dict[str, Any]:
        point, _, side = job
        if side == "ns3":
            prog = progs.bridge if point.aqm in BRIDGED else progs.native
            args = ns3_args(point)
            stdout, wall = common.run_process([str(prog.path), *args], TIMEOUT_S, "ns-3")
            try:
                data = parse_ns3_output(stdout)
            except ValueError as e:
                raise ValidationError(str(e)) from None
            summary = {k: data[k] for k in KEYS}
            return {"side": side, "summary": summary, "wall_s": wall, "command": args}
        from ...engine.runner import run
        from ...engine.scenario import Scenario

        t0 = time.monotonic()
        result = run(Scenario(point.spec.scenario_text), seed=point.spec.seed)
        row = result.summary.iloc[0]
        summary = {k: float(row[k]) for k in KEYS}
        return {"side": side, "summary": summary, "wall_s": time.monotonic() - t0}

    def rid(point: Point, _seed: int, side: str) -> str:
        return run_id(point, side, progs)

    return common.execute(out, _jobs(pts, progs), rid, do, jobs, on_done)


def tables(store: RunStore, pts: Sequence[Point], progs: Programs, side: str) -> dict[str, Any]:
    """Each figure's table from one side's stored runs: its grid columns, the seed and the
    summary values (a missing run leaves its row out)."""
    rows: dict[str, list[dict[str, Any]]] = {f: [] for f in FIGURES}
    for p in pts:
        rid = run_id(p, side, progs)
        if store.has(rid):
            rows[p.figure].append({**p.spec.params, **store.read(rid)["summary"]})
    return {f: pd.DataFrame(r) for f, r in rows.items() if r}


def verdicts(store: RunStore, pts: Sequence[Point], progs: Programs) -> dict[str, list[Claim]]:
    """The three claims of Figs. 8 and 9, judged on each side's tables."""
    out = {}
    for side in SIDES:
        judged = betared_claims.evaluate(tables(store, pts, progs, side))
        out[side] = [c for c in judged if c.id in CLAIMS]
    return out


def _value(x: Any) -> str:
    return "–" if not isinstance(x, float) or not math.isfinite(x) else f"{x:.4g}"


def verdict_table(store: RunStore, pts: Sequence[Point], progs: Programs) -> str:
    """The three claims' verdicts and evidence from each simulator, side by side."""
    judged = verdicts(store, pts, progs)
    lines = [
        "| claim | aqmlab | ns-3.37 | evidence, aqmlab | evidence, ns-3.37 |",
        "|---|---|---|---|---|",
    ]
    for ours, theirs in zip(judged["aqmlab"], judged["ns3"]):
        lines.append(
            f"| {ours.id} | {ours.verdict} | {theirs.verdict} | {ours.evidence} | "
            f"{theirs.evidence} |"
        )
    return "\n".join(lines)


def report(store: RunStore, pts: Sequence[Point], progs: Programs, quick: bool) -> str:
    """The report: the verdicts side by side, then every run's values in both simulators."""
    lines = [
        "# The BetaRED paper's Figs. 8 and 9 in ns-3.37 and in aqmlab",
        "",
        f"Grid: {'the quick grids' if quick else 'the full grids'} of "
        "`experiments/betared/fig8.toml` and `fig9.toml`. ns-3.37: ABetaRED and DBetaRED "
        "through the bridge (AqmlabQueueDisc), ARED, CoDel and PIE as ns-3's own queue discs. "
        f"Builds: {common.aqmlab_build()}, ns-3 program {progs.native.digest}, "
        f"bridge {progs.bridge.digest}.",
        "",
        verdict_table(store, pts, progs),
        "",
        "## Every run",
        "",
        "Each cell: ns-3.37 / aqmlab.",
        "",
        "| figure | point | " + " | ".join(common.LABELS.get(k, k) for k in KEYS) + " |",
        "|---|---|" + "---|" * len(KEYS),
    ]
    for p in pts:
        values = {
            side: store.read(run_id(p, side, progs))["summary"]
            if store.has(run_id(p, side, progs))
            else {}
            for side in SIDES
        }
        cells = [
            f"{_value(values['ns3'].get(k))} / {_value(values['aqmlab'].get(k))}" for k in KEYS
        ]
        lines.append(f"| {p.figure} | {p.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_outputs(
    out: Path, pts: Sequence[Point], progs: Programs, quick: bool
) -> tuple[Path, str]:
    """Write `report.md` from the stored runs; returns its path and the verdict table."""
    store = RunStore(out)
    write_file(out / REPORT, report(store, pts, progs, quick))
    return out / REPORT, verdict_table(store, pts, progs)
