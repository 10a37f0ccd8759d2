"""Shared machinery of `aqmlab validate`: tolerances and verdicts, the reference simulator's
processes (stopped when the validation is interrupted), the thread pool that runs a grid's
missing runs and stores each one as it finishes, and the Markdown and CSV tables.

The simulator-specific parts are `validate_ns2` (ns-2.35) and `validate_ns3` (ns-3.37). A job is
`(case, seed, side)`, with side `"aqmlab"` or the reference simulator's name; a case is any
object with a `case_id` and a `label`.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _core
from ..engine.outdir import open_resumable
from ..engine.store import RunStore
from ..sweeps.interrupt import Interrupted

ROOT = Path(__file__).resolve().parents[3]
"""The repository checkout aqmlab runs from, when it runs from one (it holds `Cargo.toml`):
the full ns-3 grid then also rewrites its `docs/validation-ns3.md`, and builds go under its
`target/`. An installed aqmlab has none."""


def in_checkout() -> bool:
    """Whether aqmlab runs from its repository checkout (see `ROOT`)."""
    return (ROOT / "Cargo.toml").is_file() and (ROOT / "docs").is_dir()


class ValidationError(RuntimeError):
    """A run or a set-up step failed; the message is one line."""


Job = tuple[Any, int, str]
"""(case, seed, side)."""


@dataclass(frozen=True)
class Tolerance:
    """Agreement when |aqmlab − reference| ≤ max(rel·|reference|, abs_), or when aqmlab lies
    inside the reference's own range over its seeds."""

    rel: float
    abs_: float = 0.0

    def text(self) -> str:
        rel = f"{self.rel:.0%}"
        return rel if self.abs_ == 0 else f"{rel} or {self.abs_:g}"


TOLERANCES = {
    "link_efficiency": Tolerance(0.05),
    "throughput_mbps": Tolerance(0.05),
    "avg_queue_pkts": Tolerance(0.25, 30.0),
    "std_queue_pkts": Tolerance(0.40),
    "drop_rate": Tolerance(0.25, 0.01),
    "delay_mean_ms": Tolerance(0.25),
}

LABELS = {
    "link_efficiency": "link efficiency",
    "throughput_mbps": "goodput (Mb/s)",
    "avg_queue_pkts": "average queue (pkts)",
    "std_queue_pkts": "queue STD (pkts)",
    "drop_rate": "drop rate",
    "delay_mean_ms": "mean delay (ms)",
}


# ---------------------------------------------------------------------------------------------
# reference processes


_RUNNING: set[subprocess.Popen] = set()
"""The reference simulator's processes running now, killed when the validation is
interrupted."""


@functools.cache
def aqmlab_build() -> str:
    """aqmlab's version and the digest of its compiled core, read once per process (the core
    it runs), so that a rebuilt core (same version, changed model) reruns the aqmlab side."""
    core = Path(_core.__file__)
    return f"aqmlab {_core.version()} {hashlib.sha256(core.read_bytes()).hexdigest()[:12]}"


def run_process(
    cmd: Sequence[str], timeout_s: float, name: str, cwd: Path | None = None
) -> tuple[str, float]:
    """Run one reference simulation; returns (stdout, wall seconds). ValidationError (one
    line) when it runs past `timeout_s` (it is killed) or exits with a non-zero status."""
    t0 = time.monotonic()
    with subprocess.Popen(
        list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd
    ) as proc:
        _RUNNING.add(proc)
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise ValidationError(f"{name} took longer than {timeout_s:g} s") from None
        finally:
            _RUNNING.discard(proc)
    if proc.returncode != 0:
        tail = " ".join(stderr.strip().splitlines()[-2:])
        raise ValidationError(f"{name} exited with status {proc.returncode}: {tail}")
    return stdout, time.monotonic() - t0


# ---------------------------------------------------------------------------------------------
# running a grid


@dataclass
class Outcome:
    total: int = 0
    skipped: int = 0
    ran: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)


class ValidationInterrupted(Interrupted):
    """Ctrl-C or SIGTERM stopped a validation; the finished runs are stored."""

    def __init__(self, signum: int, stored: int, total: int, out_dir: Path) -> None:
        super().__init__(
            signum,
            f"{stored} of {total} runs are stored in {out_dir}; "
            "run the same command again to resume",
        )


def execute(
    out: Path,
    all_jobs: Sequence[Job],
    run_id: Callable[[Any, int, str], str],
    do: Callable[[Job], dict[str, Any]],
    jobs: int,
    on_done: Callable[[str, float], None] | None = None,
) -> Outcome:
    """Run the jobs not yet stored under `out` (opened as a resumable `validate` result,
    `aqmlab.engine.outdir`), in the order given, on `jobs` threads (each reference run is its own
    process), and store each record `do` returns as it finishes. A failed run is
    reported in the outcome and not stored. On Ctrl-C or SIGTERM the reference processes are
    killed (an unfinished run is not kept) and `ValidationInterrupted` says what is stored."""
    open_resumable(out, "validate")
    store = RunStore(out)
    store.clean_temporary()
    ids = [run_id(*job) for job in all_jobs]
    todo = [(job, rid) for job, rid in zip(all_jobs, ids) if not store.has(rid)]
    outcome = Outcome(total=len(all_jobs), skipped=len(all_jobs) - len(todo))
    if not todo:
        return outcome
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(do, job): rid for job, rid in todo}
            remaining = set(futures)
            try:
                while remaining:
                    done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
                    for fut in done:
                        rid = futures[fut]
                        try:
                            record = fut.result()
                        except (ValidationError, _core.ScenarioError) as e:
                            outcome.failed.append((rid, str(e)))
                            continue
                        store.write(rid, record)
                        outcome.ran += 1
                        if on_done is not None:
                            on_done(rid, record["wall_s"])
            except BaseException:
                for fut in remaining:
                    fut.cancel()
                for proc in list(_RUNNING):  # an unfinished reference run is not kept
                    proc.kill()
                raise
    except KeyboardInterrupt as e:
        signum = e.signum if isinstance(e, Interrupted) else Interrupted.SIGINT
        stored = len(store.ids() & set(ids))
        raise ValidationInterrupted(signum, stored, len(ids), out) from None
    return outcome


def default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))


def check_files(paths: Mapping[str, Path]) -> None:
    """The scripts and scenario files exist; ValidationError otherwise."""
    for path in paths.values():
        if not path.is_file():
            raise ValidationError(f"missing '{path}': run from an aqmlab source checkout")


# ---------------------------------------------------------------------------------------------
# comparison


@dataclass(frozen=True)
class Comparison:
    metric: str
    ref: float
    """The reference simulator's mean over its seeds."""
    ref_spread: float
    """max − min of the reference over its seeds."""
    aqmlab: float
    verdict: str
    """`within`, `within spread` (only inside the reference's own range over seeds),
    `outside`, or `n/a` when a side is missing."""

    @property
    def rel_diff(self) -> float:
        if not math.isfinite(self.ref) or self.ref == 0:
            return math.nan
        return (self.aqmlab - self.ref) / abs(self.ref)


def judge(metric: str, ref_values: Sequence[float], aqmlab_values: Sequence[float]) -> Comparison:
    """Compare the seed means of one metric: within tolerance, inside the reference's seed
    range (max − min over its seeds, around its mean), or outside."""
    ref_values = [v for v in ref_values if math.isfinite(v)]
    aqmlab_values = [v for v in aqmlab_values if math.isfinite(v)]
    if not ref_values or not aqmlab_values:
        return Comparison(metric, math.nan, math.nan, math.nan, "n/a")
    ref = sum(ref_values) / len(ref_values)
    spread = max(ref_values) - min(ref_values)
    ours = sum(aqmlab_values) / len(aqmlab_values)
    tol = TOLERANCES[metric]
    diff = abs(ours - ref)
    if diff <= max(tol.rel * abs(ref), tol.abs_):
        verdict = "within"
    elif diff <= spread:
        verdict = "within spread"
    else:
        verdict = "outside"
    return Comparison(metric, ref, spread, ours, verdict)


Row = tuple[Any, list[Comparison]]


def compare(
    store: RunStore,
    cases: Iterable[tuple[Any, Sequence[int]]],
    run_id: Callable[[Any, int, str], str],
    ref_side: str,
    metrics: Sequence[str],
) -> list[Row]:
    """One row per (case, seeds): the verdict of every metric from the stored runs."""
    rows = []
    for case, seeds in cases:
        side_values: dict[str, dict[str, list[float]]] = {ref_side: {}, "aqmlab": {}}
        for side, values in side_values.items():
            for seed in seeds:
                rid = run_id(case, seed, side)
                if store.has(rid):
                    summary = store.read(rid)["summary"]
                    for m in metrics:
                        values.setdefault(m, []).append(float(summary.get(m, math.nan)))
        comps = [
            judge(m, side_values[ref_side].get(m, []), side_values["aqmlab"].get(m, []))
            for m in metrics
        ]
        rows.append((case, comps))
    return rows


def fmt(metric: str, value: float) -> str:
    if not math.isfinite(value):
        return "–"
    if metric == "link_efficiency":
        return f"{value:.4f}"
    if metric == "drop_rate":
        return f"{value:.2%}"
    if metric == "throughput_mbps":
        return f"{value:.2f}"
    return f"{value:.1f}"


def _cell(c: Comparison) -> str:
    if c.verdict == "n/a":
        return "–"
    rel = c.rel_diff
    diff = "–" if not math.isfinite(rel) else f"{round(rel, 3) + 0.0:+.1%}"
    mark = "**outside**" if c.verdict == "outside" else c.verdict
    return (
        f"{fmt(c.metric, c.ref)} (±{fmt(c.metric, c.ref_spread / 2)}) / "
        f"{fmt(c.metric, c.aqmlab)}, {diff}, {mark}"
    )


def single_metric_table(rows: Iterable[tuple[Any, Comparison]], heading: str, unit: str) -> str:
    """One metric per case (`case.label`): the reference mean (± half its seed range) /
    aqmlab's, the relative difference and the verdict; values formatted as `unit`'s metric."""
    lines = [f"| case | {heading} |", "|---|---|"]
    for case, c in rows:
        if c.verdict == "n/a":
            cell = "–"
        else:
            ref, spread, ours = (fmt(unit, v) for v in (c.ref, c.ref_spread / 2, c.aqmlab))
            rel = c.rel_diff
            diff = "–" if not math.isfinite(rel) else f"{round(rel, 3) + 0.0:+.1%}"
            mark = "**outside**" if c.verdict == "outside" else c.verdict
            cell = f"{ref} (±{spread}) / {ours}, {diff}, {mark}"
        lines.append(f"| {case.label} | {cell} |")
    return "\n".join(lines)


def markdown_table(rows: Iterable[Row], metrics: Sequence[str]) -> str:
    """One line per case; each cell: reference mean (± half its seed range) / aqmlab mean,
    the relative difference, and the verdict."""
    headers = ["case", *(LABELS[m] for m in metrics)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for case, comps in rows:
        lines.append("| " + " | ".join([case.label, *(_cell(c) for c in comps)]) + " |")
    return "\n".join(lines)


def summary_table(rows: Sequence[Row], metrics: Sequence[str]) -> str:
    """Per metric: the share of cases within tolerance, inside the reference's seed spread,
    and outside (cases with a side missing are left out)."""
    lines = [
        "| metric | tolerance | within | within spread | outside | agree |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for i, m in enumerate(metrics):
        verdicts = [comps[i].verdict for _, comps in rows]
        judged = [v for v in verdicts if v != "n/a"]
        n = {v: judged.count(v) for v in ("within", "within spread", "outside")}
        agree = n["within"] + n["within spread"]
        share = f"{agree}/{len(judged)} ({agree / len(judged):.0%})" if judged else "–"
        lines.append(
            f"| {LABELS[m]} | {TOLERANCES[m].text()} | {n['within']} | {n['within spread']} | "
            f"{n['outside']} | {share} |"
        )
    return "\n".join(lines)


def verdict_counts(rows: Iterable[Row]) -> str:
    counts = {"within": 0, "within spread": 0, "outside": 0, "n/a": 0}
    for _, comps in rows:
        for c in comps:
            counts[c.verdict] += 1
    return (
        f"Verdicts: {counts['within']} within, {counts['within spread']} within spread, "
        f"{counts['outside']} outside, {counts['n/a']} not run."
    )


def long_table(rows: Iterable[Row], ref_name: str) -> str:
    """CSV: one line per case and metric."""
    out = [f"case,metric,{ref_name},{ref_name}_spread,aqmlab,rel_diff,tolerance,verdict"]
    for case, comps in rows:
        for c in comps:
            out.append(
                f"{case.case_id},{c.metric},{c.ref:.6g},{c.ref_spread:.6g},{c.aqmlab:.6g},"
                f"{c.rel_diff:.6g},{TOLERANCES[c.metric].text()},{c.verdict}"
            )
    return "\n".join(out) + "\n"
